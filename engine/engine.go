package engine

import (
	"fmt"
	"time"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
	"github.com/webgguf/webgguf/tokenizer"
)

// Engine is a model loaded onto a backend, with its KV cache and graphs.
type Engine struct {
	f       *gguf.File
	m       model.Model
	cfg     model.Config
	be      compute.Backend
	kv      *model.KVCache
	nCtx    int
	nUbatch int
	decode  compute.Program // B = 1
	prefill compute.Program // B = nUbatch
	pos     int
	// written is the highest position count stored since Reset: what a
	// ring cache may have overwritten (Truncate).
	written int
	logits  []float32 // scratch: outMax rows of outWidth
	outMax  int       // logits rows per step (prefill graph)
	// outWidth is the width of a result row: n_vocab, or n_embd for an
	// embedding model.
	outWidth int
	plan     Plan
	tok      *tokenizer.Tokenizer
	tokErr   error
	phases   []LoadPhase
	// shifts is, per KVWrite of the graphs, how Shift moves that layer's
	// caches.
	shifts []keyShift
	// modelHash is ModelHash, computed at Load.
	modelHash string
	// shrunkFrom is the default context Load halved to fit memory (0: it
	// was not shrunk), for Info.
	shrunkFrom int
}

// Config returns the model's hyperparameters.
func (e *Engine) Config() model.Config { return e.cfg }

// NCtx is the KV cache capacity in positions.
func (e *Engine) NCtx() int { return e.nCtx }

// Pos is the number of positions already in the cache.
func (e *Engine) Pos() int { return e.pos }

// Reset empties the KV cache (positions are overwritten, not cleared).
func (e *Engine) Reset() { e.pos, e.written = 0, 0 }

// Truncate keeps the first pos positions of the context and drops the
// rest, so that a following Eval reuses a shared prefix (a chat history)
// instead of recomputing it.
func (e *Engine) Truncate(pos int) error {
	if pos < 0 || pos > e.pos {
		return &OptionError{"pos", fmt.Sprintf("%d outside the %d positions held", pos, e.pos)}
	}
	e.written = max(e.written, e.pos)
	if !e.kv.Keeps(e.cfg, pos, e.written) {
		return &OptionError{"pos", fmt.Sprintf("%d: the sliding-window layers no longer hold the window before it (%d positions written); Reset and evaluate again", pos, e.written)}
	}
	e.pos = pos
	if pos == 0 {
		e.written = 0 // nothing before position 0 is needed
	}
	return nil
}

// Info describes the loaded engine.
type Info struct {
	Backend string
	Plan    Plan
	// BackendBytes is what the backend actually holds (weights, caches,
	// arenas, scratch).
	BackendBytes int64
	// LoadPhases is where Load's time went, in order.
	LoadPhases []LoadPhase
	// ShrunkFrom is the context Load would have used by default had the
	// plan fit (NCtx is smaller); 0 when the context was not shrunk.
	ShrunkFrom int
}

// LoadPhase is the wall time of one step of Load: "model" (bind the
// tensors, build and size both graphs), "plan" (the backend places the
// weights), "weights" (stream them in; on the GPU also repack), "cache"
// (allocate the KV cache), "compile decode" and "compile prefill"
// (pipelines, bind groups, command tapes) and "tokenizer".
type LoadPhase struct {
	Name string
	D    time.Duration
}

// Info reports the backend, the memory plan, the backend's holdings and
// the load's phases.
func (e *Engine) Info() Info {
	return Info{Backend: e.be.Name(), Plan: e.plan, BackendBytes: e.be.MemoryBytes(), LoadPhases: e.phases, ShrunkFrom: e.shrunkFrom}
}

// Close releases the backend's storage.
func (e *Engine) Close() error { return e.be.Close() }
