package gpu

import (
	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/webgpu"
)

// CacheBuffer is the buffer holding cache t, for tests that write and read
// a cache directly.
func CacheBuffer(b *Backend, t *compute.Tensor) *webgpu.Buffer {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.caches[t]
}
