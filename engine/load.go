package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/compute/cpu"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
	"github.com/webgguf/webgguf/tokenizer"
)

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
	t0 := time.Now()
	var phases []LoadPhase
	phase := func(name string) {
		now := time.Now()
		phases = append(phases, LoadPhase{name, now.Sub(t0)})
		t0 = now
	}
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
		if cfg.NonCausal {
			// Every token attends to the whole sequence, so a sequence
			// must fit one micro-batch: make it the context.
			e.nUbatch = e.nCtx
		}
	}
	if e.nUbatch < 1 {
		return nil, &OptionError{"NUbatch", fmt.Sprintf("%d < 1", e.nUbatch)}
	}

	// Everything is sized before anything is allocated: the KV cache, both
	// graphs' arenas and the logits buffer follow from hyperparameters a
	// hostile file controls, so the plan is checked against the limits
	// first. A context the caller did not choose is halved until the plan
	// fits (a small file can declare layers whose cache at 4096 positions
	// outgrows wasm32's 4 GiB); one the caller chose is refused.
	limit := opts.MemoryLimit
	if limit == 0 {
		limit = DefaultMemoryLimit
	}
	hostLimit := opts.HostMemoryLimit
	if hostLimit == 0 {
		hostLimit = HostMemoryAvailable()
	}
	var weights int64
	for _, w := range m.Weights() {
		if ti, err := model.WeightInfo(f, w); err == nil {
			weights += ti.Size
		}
	}
	var gDecode, gPrefill *compute.Graph
	wantCtx := e.nCtx
	for {
		e.nUbatch = min(e.nUbatch, e.nCtx)
		e.kv = model.NewKVCache(cfg, e.nCtx, e.nUbatch)
		if gDecode, err = e.build(1); err != nil {
			return nil, err
		}
		if gPrefill, err = e.build(e.nUbatch); err != nil {
			return nil, err
		}
		kv, maxCache := kvBytes(e.kv, e.be)
		e.plan = Plan{
			WeightBytes: weights,
			KVBytes:     kv,
			ArenaBytes:  4 * int64(gDecode.ArenaSize+gPrefill.ArenaSize),
			LogitsBytes: 4 * int64(gPrefill.OutMax) * int64(gPrefill.Logits.Ne[0]),
		}
		me := e.plan.check(deviceResident(e.be), hostLimit, limit, opts.MaxBufferBytes, maxCache)
		if me == nil {
			break
		}
		if opts.NCtx != 0 || e.nCtx/2 < minShrinkCtx {
			return nil, me
		}
		e.nCtx /= 2
	}
	if e.nCtx < wantCtx {
		e.shrunkFrom = wantCtx
	}

	if e.be == nil {
		e.be = cpu.New(opts.Threads)
	}
	phase("model")
	// A backend that places weights itself (the GPU backend packs them
	// into a few large buffers) learns them all before the first streams.
	if p, ok := e.be.(interface{ PlanWeights([]*compute.Tensor) error }); ok {
		if err := p.PlanWeights(e.m.Weights()); err != nil {
			return nil, err
		}
	}
	phase("plan")
	if err := e.loadWeights(ctx, opts.Progress, opts.LoadWeight); err != nil {
		return nil, err
	}
	phase("weights")
	for i := range e.kv.K {
		if err := e.be.AllocCache(e.kv.K[i]); err != nil {
			return nil, err
		}
		if err := e.be.AllocCache(e.kv.V[i]); err != nil {
			return nil, err
		}
	}
	phase("cache")
	e.shifts = keyShifts(gDecode)
	e.modelHash = modelHash(f)
	if e.decode, err = e.be.Compile(gDecode); err != nil {
		return nil, err
	}
	phase("compile decode")
	if e.prefill, err = e.be.Compile(gPrefill); err != nil {
		return nil, err
	}
	phase("compile prefill")
	e.outMax = gPrefill.OutMax
	e.outWidth = gPrefill.Logits.Ne[0]
	e.logits = make([]float32, e.outMax*e.outWidth)
	// A model whose vocabulary the tokenizer cannot handle still evaluates
	// token ids; the error is kept for Tokenizer.
	if opts.Tokenizer != nil {
		e.tok = opts.Tokenizer
	} else {
		e.tok, e.tokErr = tokenizer.FromGGUF(f)
	}
	phase("tokenizer")
	e.phases = phases
	return e, nil
}

// kvBytes is the cache's size as be stores it, and its largest tensor's
// (one buffer each on the GPU): a backend that chooses its own cache
// element type (the GPU backend: f16 by default) says per tensor, others
// (and the default CPU backend, be nil) hold f32.
func kvBytes(kv *model.KVCache, be compute.Backend) (total, largest int64) {
	size := func(t *compute.Tensor) int64 { return 4 * int64(t.Elems()) }
	if cb, ok := be.(interface{ CacheBytes(*compute.Tensor) int64 }); ok {
		size = cb.CacheBytes
	}
	for i := range kv.K {
		k, v := size(kv.K[i]), size(kv.V[i])
		total += k + v
		largest = max(largest, k, v)
	}
	return total, largest
}

// Tokenizer returns the model's tokenizer (llama.cpp-exact), or the error
// that building it from the file's tokenizer.ggml.* metadata gave.
func (e *Engine) Tokenizer() (*tokenizer.Tokenizer, error) { return e.tok, e.tokErr }

func (e *Engine) loadWeights(ctx context.Context, progress func(done, total int64), load WeightLoader) error {
	var total, done int64
	infos := make([]*gguf.TensorInfo, len(e.m.Weights()))
	for i, w := range e.m.Weights() {
		// A view (a part of a fused tensor) gets a TensorInfo of its own
		// rows, so it streams only those bytes, on either path.
		ti, err := model.WeightInfo(e.f, w)
		if err != nil {
			return err
		}
		infos[i] = ti
		total += ti.Size
	}
	if load != nil {
		return loadWith(ctx, load, e.m.Weights(), infos, total, progress)
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
	out := min(b, maxOutRows)
	if e.cfg.Embeddings {
		// An encoder returns hidden states, n_embd wide: every row of a
		// micro-batch comes back, for pooling.
		out = b
	}
	g := compute.NewGraph(b, out)
	if err := e.m.Forward(g, e.kv); err != nil {
		return nil, err
	}
	return g, nil
}
