package enginehost

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/webgguf/webgguf/compute"
)

// BackendFactory makes a compute backend for a load ("webgpu" when the GPU
// backend registers one); it fails with a gpu-unavailable error when the
// device cannot be had.
type BackendFactory func(ctx context.Context) (compute.Backend, error)

// Host serves the engine requests: one loaded model, one request at a time.
type Host struct {
	turn chan struct{} // a token: held by the request that runs

	mu       sync.Mutex
	backends map[string]BackendFactory
	m        *loaded // nil when no model is loaded

	// greedyRuns counts the generations that ran on engine.Greedy
	// (engine.PlainGreedy), so tests can tell which path a request took.
	greedyRuns atomic.Int64
	// candidateDraws counts the tokens drawn from a backend's top-k
	// candidates (engine.CandidateSampler) instead of a logits row.
	candidateDraws atomic.Int64
}

// New returns a Host with no model loaded and only the CPU backend.
func New() *Host {
	return &Host{turn: make(chan struct{}, 1), backends: map[string]BackendFactory{}}
}

// SetBackend makes "name" (e.g. "webgpu") loadable; "auto" prefers "webgpu"
// when it is set and falls back to the CPU when it fails or its adapter is a
// software renderer.
func (h *Host) SetBackend(name string, f BackendFactory) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.backends[name] = f
}

func (h *Host) backend(name string) (BackendFactory, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f, ok := h.backends[name]
	return f, ok
}

// acquire waits for this request's turn; ctx ends the wait. The returned
// function gives the turn back.
func (h *Host) acquire(ctx context.Context) (func(), error) {
	select {
	case h.turn <- struct{}{}:
		return func() { <-h.turn }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// model returns the loaded model or the no-model error.
func (h *Host) model() (*loaded, error) {
	if h.m == nil {
		return nil, errNoModel
	}
	return h.m, nil
}
