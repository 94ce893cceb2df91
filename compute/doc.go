// Package compute is the backend-neutral description of a forward pass: a
// graph of a small, fixed op set over symbolic tensors with static shapes.
//
// # Why a graph, built once
//
// The WebGPU backend records a graph into a tape of WGSL dispatches whose
// buffers and bind groups are all created at load time; nothing may be
// created, and no host-side decision may be taken per op, inside the token
// loop. So a model's Forward runs once per (model, micro-batch size B) and
// produces a Graph whose every tensor has a static shape; the graph is then
// executed many times. Everything that changes from step to step is a
// runtime value of the step (Step): the position of the first row (Pos0),
// the token ids (N = len(Tokens) <= B valid rows) and the rows whose logits
// are wanted (NOut = len(OutRows) <= OutMax <= B; the output rows get their
// own static size because a logits row is large). Backends size work by B
// and OutMax and may clamp it to N or NOut at run time (the GPU reads them
// from a uniform).
//
// # Tensors
//
// A Tensor is a node's output or a graph leaf. Leaves are model weights
// (Kind Weight: stored in their GGUF format, never expanded), the KV cache
// (Kind Cache: [layer][kv_head][pos][dim] f32, which a backend may store
// narrower, the GPU backend as f16; allocated once from n_ctx)
// and the two int32 inputs (token ids, output row ids). Weights and caches
// are shared by every graph built for a model; activations (Kind
// Activation) belong to one graph and live in one arena laid out by Plan,
// which reuses memory of tensors whose last reader has run.
//
// Shapes follow ggml: Ne[0] is the contiguous row length, Ne[1] the number
// of rows (tokens for activations, output features for weights), Ne[2] a
// third dimension used only by the KV cache.
//
// # Ops
//
// Node.Src layouts (nil marks an absent optional source):
//
//	GetRows     [table, Tokens]      embedding lookup: row Tokens[i] of table
//	PosRows     [table]              row Pos0+i of table (learned positions),
//	                                 or row 0 for every i with Row0 (TypeRows)
//	SelectRows  [x, OutRows]         rows of x picked by the OutRows input
//	RMSNorm     [x, w|nil]           x/rms(x)·w over each Group elements, eps
//	MatMul      [w, x, bias|nil]     w·x (+bias); w a weight in any ggml type
//	Rope        [x, freqs|nil]       rotary embedding at position Pos0+row,
//	                                 frequencies divided by freqs (rope_freqs)
//	KVWrite     [k, v, kcache, vcache]  store rows at positions Pos0+row
//	Attention   [q, kcache, vcache]  GQA softmax(mask(cap(q·Kᵀ·Scale)))·V,
//	                                 causal over positions 0..Pos0+row
//	GLU         [gate, up]           act(gate)·up (SwiGLU: SiLU, GeGLU: GELU)
//	Act         [x]                  act(x)
//	Add, Mul    [a, b]               a+b, a·b (same shapes)
//	Scale       [x]                  x·Scalar
//	Softcap     [x]                  Scalar·tanh(x/Scalar)
//	LayerNorm   [x, w|nil, b|nil]    (x-mean)/sqrt(var+eps)·w + b over each
//	                                 Group elements
//
// Attention's AttnParams add a sliding window (Window), a logit soft-cap
// (Softcap) and a non-causal mode (NonCausal) to the causal default.
//
// A cache made by NewRingCache is a ring: it holds position p in row
// p mod Ne[1], so a sliding-window layer keeps only its window (plus one
// micro-batch, which Attention checks). Ordinary caches hold position p in
// row p; backends may index every cache modulo its length.
//
// 1-D weights (norm scales, biases, rope_freqs) may be stored in any float
// or quantized format; a backend expands them once at Compile.
//
// Nodes run in the order they were added; KVWrite of a layer precedes its
// Attention. All arithmetic is f32 with f32 accumulation, as ggml's CPU path
// without 8-bit activation quantization; a backend may quantize activations
// only if it stays within the tolerance rule of engine/refcheck.
//
// # Backends
//
// A Backend owns the storage of weights and caches (LoadWeight, AllocCache)
// and compiles a Graph into a Program; Program.Run executes one Step and
// writes the logits of the OutRows. compute/cpu is the pure-Go backend (also
// the fallback where WebGPU is missing); the WebGPU backend implements the
// same interface.
package compute
