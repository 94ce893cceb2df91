package engine

import (
	"github.com/webgguf/webgguf/compute"
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
	// HostMemoryLimit caps the part of the plan held in Go memory: all of
	// it on the CPU backend, the logits buffer on the WebGPU backend. 0
	// means HostMemoryAvailable() at the time of Load (on wasm32, the
	// address space left). Load fails with a *MemoryError if it is
	// exceeded, after shrinking the context when NCtx was left 0.
	HostMemoryLimit int64
	// MaxBufferBytes, if not 0, is the largest buffer the backend can
	// create (WebGPU's maxBufferSize): a KV cache tensor above it fails
	// Load with a *MemoryError before the weights are streamed.
	MaxBufferBytes int64
	// LoadWeight, if set, moves each weight into the backend in place of
	// the engine's own stream of the file through Go memory (see
	// WeightLoader). Progress then advances one tensor at a time.
	LoadWeight WeightLoader
	// Tokenizer, if set, is the model's tokenizer already built from the
	// same file (tokenizer.FromGGUF), which Load then does not build again:
	// a 128k-token BPE vocabulary takes ~0.4 s and tens of MB to build in
	// the browser's wasm.
	Tokenizer *tokenizer.Tokenizer
}

// DefaultMemoryLimit is the planned-memory cap when Options.MemoryLimit is
// 0: 16 GiB, far above the models a browser tab can hold but small enough
// that a hostile file cannot make Load ask for terabytes.
const DefaultMemoryLimit = 16 << 30

// Plan is the static memory plan of an engine, in bytes.
type Plan struct {
	WeightBytes int64 // weights in their file format
	KVBytes     int64 // K and V caches as the backend stores them (f32; f16 on the GPU backend by default)
	ArenaBytes  int64 // activation arenas of the decode and prefill graphs
	LogitsBytes int64 // host buffer for one step's rows of logits
}

// Total is the sum of the plan's parts.
func (p Plan) Total() int64 { return p.WeightBytes + p.KVBytes + p.ArenaBytes + p.LogitsBytes }
