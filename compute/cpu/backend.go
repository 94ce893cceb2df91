package cpu

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
)

// Backend is the CPU implementation of compute.Backend.
type Backend struct {
	threads int

	mu      sync.Mutex
	weights map[*compute.Tensor][]byte
	caches  map[*compute.Tensor][]float32
	mem     int64
}

// New returns a CPU backend using up to threads goroutines per op
// (GOMAXPROCS when threads <= 0).
func New(threads int) *Backend {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	return &Backend{threads: threads, weights: map[*compute.Tensor][]byte{}, caches: map[*compute.Tensor][]float32{}}
}

// Name returns "cpu".
func (b *Backend) Name() string { return "cpu" }

// Threads is the parallelism used per op.
func (b *Backend) Threads() int { return b.threads }

// WeightError reports a weight the CPU backend cannot hold.
type WeightError struct {
	Tensor string
	Reason string
}

// Error formats the WeightError.
func (e *WeightError) Error() string { return fmt.Sprintf("cpu: weight %s: %s", e.Tensor, e.Reason) }

// LoadWeight copies the weight's bytes, in their file format, into memory.
func (b *Backend) LoadWeight(t *compute.Tensor, size int64, src compute.Stream) error {
	// I2_S keeps one scale per tensor after its rows, which row-wise
	// kernels and row views cannot reach.
	if tt, _ := t.Type.Traits(); !gguf.CanDequantize(t.Type) || tt.TensorExtra != 0 {
		return &WeightError{t.Name, fmt.Sprintf("type %s not supported", t.Type)}
	}
	rb, ok := t.Type.RowBytes(int64(t.Ne[0]))
	if !ok || t.Ne[0] <= 0 || t.Ne[1] <= 0 || t.Ne[2] != 1 {
		return &WeightError{t.Name, fmt.Sprintf("shape %v does not fit type %s", t.Ne, t.Type)}
	}
	if want := rb * int64(t.Ne[1]); size != want {
		return &WeightError{t.Name, fmt.Sprintf("%d bytes, shape %v of %s needs %d", size, t.Ne, t.Type, want)}
	}
	buf := make([]byte, size)
	var got int64
	err := src(func(off int64, chunk []byte) error {
		if off != got || off+int64(len(chunk)) > size {
			return &WeightError{t.Name, fmt.Sprintf("chunk at %d+%d out of order (have %d of %d)", off, len(chunk), got, size)}
		}
		copy(buf[off:], chunk)
		got += int64(len(chunk))
		return nil
	})
	if err != nil {
		return err
	}
	if got != size {
		return &WeightError{t.Name, fmt.Sprintf("stream ended after %d of %d bytes", got, size)}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, dup := b.weights[t]; dup {
		return &WeightError{t.Name, "loaded twice"}
	}
	b.weights[t] = buf
	b.mem += size
	return nil
}

// AllocCache allocates a zeroed f32 cache tensor.
func (b *Backend) AllocCache(t *compute.Tensor) error {
	if t.Kind != compute.Cache || t.Elems() <= 0 {
		return fmt.Errorf("cpu: %v is not a cache tensor", t)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.caches[t] = make([]float32, t.Elems())
	b.mem += int64(t.Elems()) * 4
	return nil
}

// MemoryBytes is the memory held for weights, caches and compiled arenas.
func (b *Backend) MemoryBytes() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.mem
}

// Close drops all storage.
func (b *Backend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.weights, b.caches, b.mem = map[*compute.Tensor][]byte{}, map[*compute.Tensor][]float32{}, 0
	return nil
}

var _ compute.Backend = (*Backend)(nil)
