package engine

import (
	"context"
	"fmt"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/compute/cpu"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
	"github.com/webgguf/webgguf/tokenizer"
)

// Options configure Load. Zero values pick defaults.
type Options struct {
	// NCtx is the KV cache length in positions (default: the model's
	// training context, at most 4096).
	NCtx int
	// NUbatch is the prefill micro-batch size (default 512, at most NCtx).
	NUbatch int
	// Backend executes the graphs (default: a CPU backend).
	Backend compute.Backend
	// Threads is the CPU backend's parallelism when Backend is nil
	// (default GOMAXPROCS).
	Threads int
	// Progress, if set, is called after each weight chunk with bytes
	// loaded so far and the total.
	Progress func(done, total int64)
	// MemoryLimit caps the planned memory (weights, KV cache, arenas,
	// logits) in bytes; 0 means DefaultMemoryLimit. Load fails with a
	// *MemoryError before allocating anything if the plan exceeds it.
	MemoryLimit int64
}

// DefaultMemoryLimit is the planned-memory cap when Options.MemoryLimit is
// 0: 16 GiB, far above the models a browser tab can hold but small enough
// that a hostile file cannot make Load ask for terabytes.
const DefaultMemoryLimit = 16 << 30

// Plan is the static memory plan of an engine, in bytes.
type Plan struct {
	WeightBytes int64 // weights in their file format
	KVBytes     int64 // K and V caches, f32
	ArenaBytes  int64 // activation arenas of the decode and prefill graphs
	LogitsBytes int64 // host buffer for one step's rows of logits
}

// Total is the sum of the plan's parts.
func (p Plan) Total() int64 { return p.WeightBytes + p.KVBytes + p.ArenaBytes + p.LogitsBytes }

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
	logits  []float32 // scratch: outMax rows of n_vocab
	outMax  int       // logits rows per step (prefill graph)
	plan    Plan
	tok     *tokenizer.Tokenizer
	tokErr  error
}

// chunkSize is the streaming unit from the file into the backend: 1 MiB,
// as the browser streams OPFS chunks straight into GPU buffers.
const chunkSize = 1 << 20

// maxOutRows bounds the logits rows of one prefill step: teacher-forced
// evaluation of every position runs in steps of this many tokens, and the
// graph's output tensors stay small for vocabularies of 100k+ entries.
const maxOutRows = 32

// maxCtx caps the default context so that an untrusted context_length
// cannot size the cache.
const maxCtx = 4096

// Load builds an engine for f: it binds and checks the model, plans and
// checks memory, streams the weights into the backend, allocates the KV
// cache and compiles the decode and prefill graphs. f is read only during
// Load (the backends copy the weights), so it may be closed afterwards.
func Load(ctx context.Context, f *gguf.File, opts Options) (*Engine, error) {
	m, err := model.Load(f)
	if err != nil {
		return nil, err
	}
	cfg := m.Config()
	e := &Engine{f: f, m: m, cfg: cfg, be: opts.Backend, nCtx: opts.NCtx, nUbatch: opts.NUbatch}
	if e.nCtx == 0 {
		e.nCtx = min(cfg.NCtxTrain, maxCtx)
	}
	if e.nCtx < 1 || e.nCtx > 1<<20 {
		return nil, &OptionError{"NCtx", fmt.Sprintf("%d outside [1, %d]", e.nCtx, 1<<20)}
	}
	if e.nUbatch == 0 {
		e.nUbatch = 512
	}
	if e.nUbatch < 1 {
		return nil, &OptionError{"NUbatch", fmt.Sprintf("%d < 1", e.nUbatch)}
	}
	e.nUbatch = min(e.nUbatch, e.nCtx)

	// Everything is sized before anything is allocated: the KV cache, both
	// graphs' arenas and the logits buffer follow from hyperparameters a
	// hostile file controls, so the plan is checked against a limit first.
	e.kv = model.NewKVCache(cfg, e.nCtx)
	gDecode, err := e.build(1)
	if err != nil {
		return nil, err
	}
	gPrefill, err := e.build(e.nUbatch)
	if err != nil {
		return nil, err
	}
	var weights int64
	for _, w := range m.Weights() {
		if ti, ok := f.Tensor(w.Name); ok {
			weights += ti.Size
		}
	}
	e.plan = Plan{
		WeightBytes: weights,
		KVBytes:     e.kv.Bytes(),
		ArenaBytes:  4 * int64(gDecode.ArenaSize+gPrefill.ArenaSize),
		LogitsBytes: 4 * int64(gPrefill.OutMax) * int64(cfg.NVocab),
	}
	limit := opts.MemoryLimit
	if limit == 0 {
		limit = DefaultMemoryLimit
	}
	if need := e.plan.Total(); need > limit {
		return nil, &MemoryError{Plan: e.plan, Limit: limit}
	}

	if e.be == nil {
		e.be = cpu.New(opts.Threads)
	}
	if err := e.loadWeights(ctx, opts.Progress); err != nil {
		return nil, err
	}
	for i := range e.kv.K {
		if err := e.be.AllocCache(e.kv.K[i]); err != nil {
			return nil, err
		}
		if err := e.be.AllocCache(e.kv.V[i]); err != nil {
			return nil, err
		}
	}
	if e.decode, err = e.be.Compile(gDecode); err != nil {
		return nil, err
	}
	if e.prefill, err = e.be.Compile(gPrefill); err != nil {
		return nil, err
	}
	e.outMax = gPrefill.OutMax
	e.logits = make([]float32, e.outMax*cfg.NVocab)
	// A model whose vocabulary the tokenizer cannot handle still evaluates
	// token ids; the error is kept for Tokenizer.
	e.tok, e.tokErr = tokenizer.FromGGUF(f)
	return e, nil
}

// Tokenizer returns the model's tokenizer (llama.cpp-exact), or the error
// that building it from the file's tokenizer.ggml.* metadata gave.
func (e *Engine) Tokenizer() (*tokenizer.Tokenizer, error) { return e.tok, e.tokErr }

func (e *Engine) loadWeights(ctx context.Context, progress func(done, total int64)) error {
	var total, done int64
	infos := make([]*gguf.TensorInfo, len(e.m.Weights()))
	for i, w := range e.m.Weights() {
		ti, ok := e.f.Tensor(w.Name)
		if !ok {
			return &model.MissingTensorError{Name: w.Name}
		}
		infos[i] = ti
		total += ti.Size
	}
	buf := make([]byte, chunkSize)
	for i, w := range e.m.Weights() {
		ti := infos[i]
		src := func(fn func(off int64, chunk []byte) error) error {
			return e.f.StreamTensor(ti, buf, func(off int64, chunk []byte) error {
				if err := ctx.Err(); err != nil {
					return err
				}
				if err := fn(off, chunk); err != nil {
					return err
				}
				done += int64(len(chunk))
				if progress != nil {
					progress(done, total)
				}
				return nil
			})
		}
		if err := e.be.LoadWeight(w, ti.Size, src); err != nil {
			return err
		}
	}
	return nil
}

// build constructs the forward graph for micro-batches of b tokens and
// lays out its arena; nothing is allocated on the backend.
func (e *Engine) build(b int) (*compute.Graph, error) {
	g := compute.NewGraph(b, min(b, maxOutRows))
	if err := e.m.Forward(g, e.kv); err != nil {
		return nil, err
	}
	return g, nil
}

// Config returns the model's hyperparameters.
func (e *Engine) Config() model.Config { return e.cfg }

// NCtx is the KV cache capacity in positions.
func (e *Engine) NCtx() int { return e.nCtx }

// Pos is the number of positions already in the cache.
func (e *Engine) Pos() int { return e.pos }

// Reset empties the KV cache (positions are overwritten, not cleared).
func (e *Engine) Reset() { e.pos = 0 }

// Truncate keeps the first pos positions of the context and drops the
// rest, so that a following Eval reuses a shared prefix (a chat history)
// instead of recomputing it.
func (e *Engine) Truncate(pos int) error {
	if pos < 0 || pos > e.pos {
		return &OptionError{"pos", fmt.Sprintf("%d outside the %d positions held", pos, e.pos)}
	}
	e.pos = pos
	return nil
}

// Info describes the loaded engine.
type Info struct {
	Backend string
	Plan    Plan
	// BackendBytes is what the backend actually holds (weights, caches,
	// arenas, scratch).
	BackendBytes int64
}

// Info reports the backend, the memory plan and the backend's holdings.
func (e *Engine) Info() Info {
	return Info{Backend: e.be.Name(), Plan: e.plan, BackendBytes: e.be.MemoryBytes()}
}

// Close releases the backend's storage.
func (e *Engine) Close() error { return e.be.Close() }
