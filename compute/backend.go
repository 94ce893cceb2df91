package compute

import (
	"context"
	"errors"
	"fmt"
)

// Step is the runtime input of one execution of a graph.
type Step struct {
	// Pos0 is the KV position of the first token (tokens already cached).
	Pos0 int
	// Tokens are the ids of this micro-batch, 1..B of them.
	Tokens []int32
	// OutRows are the rows (indices into Tokens) whose logits are wanted,
	// 0..OutMax of them, each < len(Tokens).
	OutRows []int32
}

// Stream delivers the bytes of one weight in order: it calls fn with
// consecutive chunks starting at offset 0 (gguf.File.StreamTensor's shape).
type Stream func(fn func(off int64, chunk []byte) error) error

// Backend executes graphs. It owns the storage of weights and caches,
// which all graphs of one model share.
type Backend interface {
	// Name identifies the backend ("cpu", "webgpu").
	Name() string
	// LoadWeight stores weight t, whose size bytes are delivered by src.
	LoadWeight(t *Tensor, size int64, src Stream) error
	// AllocCache allocates a zeroed KV cache tensor.
	AllocCache(t *Tensor) error
	// Compile prepares g (already planned by SetLogits) for execution.
	Compile(g *Graph) (Program, error)
	// MemoryBytes is the memory held for weights, caches and arenas.
	MemoryBytes() int64
	// Close releases everything the backend holds.
	Close() error
}

// Program is a compiled graph.
type Program interface {
	// Run executes one step and writes the logits of the OutRows to
	// logits, len(OutRows) rows of n_vocab values. It returns ctx.Err()
	// if ctx is cancelled.
	Run(ctx context.Context, s Step, logits []float32) error
}

// ArgmaxProgram is implemented by programs that can pick the greedy token
// where the logits are, so that only a token id comes back (the GPU
// backend's readback of 4 bytes instead of a vocabulary row).
type ArgmaxProgram interface {
	Program
	// RunArgmax executes s, whose OutRows must hold exactly one row, and
	// returns the index of that row's largest logit (the lowest index
	// among equals, as llama.cpp's greedy sampler).
	RunArgmax(ctx context.Context, s Step) (int32, error)
}

// TopKProgram is implemented by programs that can select the best logits
// of a step where they are, so that a sampler whose chain starts with a
// top-k draws from MaxTopK candidates instead of a whole vocabulary row
// read back (the GPU backend: at most 64 ids and logits, 512 bytes).
type TopKProgram interface {
	Program
	// RunTopK executes s, whose OutRows must hold exactly one row, and
	// writes the len(ids) largest logits of that row and their ids, best
	// first (the lower id first among equals); len(ids) is 1..MaxTopK.
	RunTopK(ctx context.Context, s Step, ids []int32, logits []float32) error
	// MaxTopK is the largest len(ids) RunTopK takes.
	MaxTopK() int
}

// TopKPipeliner is a TopKProgram whose steps can be encoded ahead: the
// host encodes step n+1 while the device runs step n, and submits it once
// the token drawn from step n's candidates is known (the GPU backend:
// the encode leaves the critical path of sampled decoding).
type TopKPipeliner interface {
	TopKProgram
	// SubmitTopK submits a step with one output row whose candidates
	// ReadTopK returns, discarding results of earlier top-k steps not
	// read yet (a generation cancelled mid-read); it uses the encoding
	// PrepareTopK made if that was for a step of the same shape and
	// variant, else encodes now.
	SubmitTopK(ctx context.Context, s Step) error
	// PrepareTopK encodes step s ahead; only its shape and position
	// matter (the tokens are written by SubmitTopK). Call it after
	// submitting the previous step and before reading its result.
	PrepareTopK(ctx context.Context, s Step) error
	// ReadTopK waits for the oldest submitted top-k step and writes the
	// ids and logits of its len(ids) best logits, best first.
	ReadTopK(ctx context.Context, ids []int32, logits []float32) error
}

// ErrBadStep is wrapped by errors for steps that do not fit a graph.
var ErrBadStep = errors.New("compute: step does not fit the graph")

// CheckStep validates s against g and the cache length nCtx, so that
// backends never index out of range on untrusted ids.
func CheckStep(g *Graph, s Step, nCtx, nVocab int, logits []float32) error {
	switch {
	case len(s.Tokens) < 1 || len(s.Tokens) > g.B:
		return fmt.Errorf("%w: %d tokens for micro-batch %d", ErrBadStep, len(s.Tokens), g.B)
	case len(s.OutRows) > g.OutMax:
		return fmt.Errorf("%w: %d output rows, graph returns at most %d", ErrBadStep, len(s.OutRows), g.OutMax)
	case s.Pos0 < 0 || s.Pos0+len(s.Tokens) > nCtx:
		return fmt.Errorf("%w: positions %d..%d outside context %d", ErrBadStep, s.Pos0, s.Pos0+len(s.Tokens), nCtx)
	case g.NPos > 0 && s.Pos0+len(s.Tokens) > g.NPos:
		return fmt.Errorf("%w: positions %d..%d beyond the model's %d learned positions", ErrBadStep, s.Pos0, s.Pos0+len(s.Tokens), g.NPos)
	case len(logits) < len(s.OutRows)*nVocab:
		return fmt.Errorf("%w: logits buffer %d < %d", ErrBadStep, len(logits), len(s.OutRows)*nVocab)
	}
	if g.NTokens > 0 {
		nVocab = g.NTokens
	}
	for i, id := range s.Tokens {
		if id < 0 || int(id) >= nVocab {
			return fmt.Errorf("%w: token %d at row %d outside vocabulary %d", ErrBadStep, id, i, nVocab)
		}
	}
	for i, r := range s.OutRows {
		if r < 0 || int(r) >= len(s.Tokens) {
			return fmt.Errorf("%w: output row %d (index %d) outside %d tokens", ErrBadStep, r, i, len(s.Tokens))
		}
	}
	return nil
}
