package gpu

import (
	"context"

	"github.com/webgguf/webgguf/compute"
)

// PackAll and ReadRaw expose the load-time repack and the weight's bytes as
// stored (packed or not) to the external tests.
func PackAll(b *Backend) error { return b.packAll() }

func ReadRaw(ctx context.Context, b *Backend, t *compute.Tensor) ([]byte, error) {
	b.mu.Lock()
	w := b.weights[t]
	b.mu.Unlock()
	return w.read(ctx, b.d)
}
