package gpu

import (
	"context"
	"time"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/webgpu"
)

// Stats are the backend's step counters, for benchmarks.
type Stats struct {
	// Steps is the number of program steps submitted.
	Steps int64
	// Encode is the host time spent in those steps from writing the step
	// buffer to the return of the submit (not waiting for the GPU).
	Encode time.Duration
	// Dispatches is the kernel launches of the last step.
	Dispatches int
	// OneBinding counts the SwiGLU and QKV prefill matmuls compiled so far
	// that read all of their matrices through one binding (shaders
	// Key.OneW; SetMatmulOneBinding).
	OneBinding int
}

func (b *Backend) noteStep(d time.Duration, dispatches int) {
	b.mu.Lock()
	b.stats.Steps++
	b.stats.Encode += d
	b.stats.Dispatches = dispatches
	b.mu.Unlock()
}

// Stats returns the step counters.
func (b *Backend) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stats
}

// Wait blocks until the GPU has finished the work submitted so far. It
// reads 4 bytes through a staging buffer, so it is for benchmarks and
// tests, not the token loop.
func (b *Backend) Wait(ctx context.Context) error {
	b.mu.Lock()
	var buf *webgpu.Buffer
	for _, c := range b.caches {
		buf = c
		break
	}
	b.mu.Unlock()
	if buf == nil {
		return nil
	}
	_, err := b.d.ReadBuffer(ctx, buf, 0, 4)
	return err
}

// Sampler is implemented by the programs of this backend: sampling on the
// GPU so that only token ids come back.
type Sampler interface {
	compute.Program
	// RunArgmax runs a step with exactly one output row and returns the
	// greedy token.
	RunArgmax(ctx context.Context, s compute.Step) (int32, error)
	// RunTopK runs a step with exactly one output row and writes the
	// len(ids) best ids and their logits, best first.
	RunTopK(ctx context.Context, s compute.Step, ids []int32, logits []float32) error
	// Dispatches is the number of kernel launches per step.
	Dispatches() int
}

var _ Sampler = (*program)(nil)

// ReadWeight reads weight t's bytes back from the GPU (tests, debugging).
func ReadWeight(ctx context.Context, b *Backend, t *compute.Tensor) ([]byte, error) {
	b.mu.Lock()
	w, ok := b.weights[t]
	b.mu.Unlock()
	if !ok {
		return nil, &Error{t.Name, "not loaded"}
	}
	out, err := w.read(ctx, b.d)
	if err != nil {
		return nil, err
	}
	return unpacked(w, out) // repack.go
}
