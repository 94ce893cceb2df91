// Package shaders holds the WGSL kernel templates and the specializer that
// turns a kernel key into WGSL source.
//
// # API
//
//	k, err := shaders.Build(shaders.Key{Op: shaders.OpMatvec, Weight: gguf.TypeQ4_K})
//	// k.WGSL, k.Entry: the compute shader; k.Bindings[i] is @group(0) @binding(i)
//	// (convert with webgpu.BindingKind(b)); k.BindingNames name them.
//	p, _ := dev.CachedComputePipeline(k.Key.String(), "matvec", k.WGSL, k.Entry, layout)
//	params := shaders.MatvecParams{K: 2048, N: 8192}.Bytes() // the uniform at binding 0
//	x, y, z := k.Dispatch(shaders.Shape{N: 8192})           // the grid this specialization needs
//
// A Key names every specialization: op, weight format, KV-cache type,
// shader-f16, subgroups, workgroup size, rows per workgroup and per thread,
// tile sizes, head size, epilogues (bias, residual, SwiGLU), RoPE mode. Build
// fills defaults, validates (a *KeyError names the field), renders the
// templates and caches the result by the resolved key, whose String is a
// sound pipeline-cache key. The Kernel carries its own Dispatch, derived from
// the same resolved key as the WGSL, so host and shader cannot disagree about
// rows per workgroup or tiles. Each op's Params type documents its bindings,
// uniform layout and which Shape fields Dispatch reads.
//
// # Kernels
//
// get_rows (embedding lookup with dequantization), rms_norm (weight multiply
// fused, optional residual add that also writes the sum), rope (normal and
// NEOX, freq base/scale, partial rotary dims, optional per-pair frequency
// factors), matvec (decode; bias, residual and SwiGLU gate·up epilogues,
// the gate's activation SiLU or GELU (GeGLU) by Key.Act),
// matvec_qkv (the Q, K and V projections in one dispatch, each matrix in its
// own format),
// matmul (prefill, TM×TN×TK tiles dequantized into workgroup memory),
// rope_kv (RoPE on q and k fused with the K/V cache write: three decode
// dispatches in one), attn_decode + attn_merge (flash-decoding: the KV range split over
// workgroups, partial max/sum/acc merged), attn_prefill (tiled causal
// attention with an online softmax; with Coop, attn_prefill_tiled.wgsl:
// scores and p·V register-tiled, each score exponentiated once), silu_mul,
// gelu_mul, silu, gelu, add, mul, scale, softcap, layer_norm (weight
// multiply and optional bias add fused), kv_write
// (K and V in one dispatch, f32 or f16 cache), argmax and top_k. GQA: query
// head h reads KV head h / (Heads/KVHeads); attn_decode's Group serves all
// query heads of a KV head from one workgroup, reading the cache once (with
// Coop, up to 4 heads as the lanes of one vector: attn_decode_gqa.wgsl).
//
// Weight formats (matvec, matmul, get_rows): f32 f16 bf16 q4_0 q4_1 q5_0 q5_1
// q8_0 q2_K q3_K q4_K q5_K q6_K iq4_nl iq4_xs and the ternary tq1_0 tq2_0, in
// ggml's own byte layout (no repacking: a tensor's bytes go from the file to
// the GPU unchanged; the ternary kernels unpack trits and 2-bit fields from
// the packed words as they dot them).
// Weights are bound as array<u32> (matvec's f32/f16/bf16 path as
// array<vec4<u32>>); 18-, 22-, 34-, 110- and 210-byte blocks start mid-word
// and are read with two loads and a funnel shift (weights.wgsl rd4x). Each
// format supplies dq (one element, for get_rows and matmul tiles) and udot
// (a 32-element unit dotted with x, word loads, for matvec); see wgsl/dq.
//
// # Numerics and devices
//
// Arithmetic, accumulation, softmax and norms are f32 on every device. f16
// data (weights, f16 KV cache) stays packed two per u32 and is converted with
// unpack2x16float, so devices without shader-f16 (SwiftShader) run every
// kernel and buffer layouts never depend on the device. Key.F16 emits
// "enable f16;" and native f16 casts for those conversions; wgpu-native v22
// (our native backend) cannot compile "enable f16", so natively only F16 =
// false runs and the F16 variants are for browsers. No kernel uses subgroup
// operations yet (wgpu-native v22 has no subgroups feature to test them
// with); Build rejects Subgroups rather than pretend.
//
// Binding rules the caller must keep: matvec's x (and f32/f16/bf16 w) are
// bound as vec4, so their bindings must span a multiple of 16 bytes; every
// kernel's uniform is the op's Params.Bytes(); outputs never alias inputs
// (WebGPU forbids it), except rope, which rotates its one binding in place.
//
// # Tests
//
// The GPU tests (go test ./shaders/..., lavapipe in CI) run every kernel,
// every weight format and specialization on random inputs from a fresh,
// logged seed, with odd shapes (K not a multiple of the tile or of the
// threads per row, N not a multiple of rows per workgroup), outputs filled
// with NaN before the run, against the float64 references in internal/ref
// built on package gguf's dequantization (ggml's block layouts). Tolerances
// are stated next to each test.
//
// # Decode dispatches per layer
//
// rms_norm with Residual (adds the previous block's output) · matvec_qkv ·
// rope_kv · attn_decode · attn_merge · matvec (O) · rms_norm with Residual ·
// matvec with SwiGLU (gate·up) · matvec (down): 9, the residual adds living
// in the norms; 8 with attn_decode's NoSplit (one workgroup per head, no
// merge), the better choice while the context is short. Sampling adds argmax
// or top_k once per token. With Key.Norm the norms run inside the following
// matvec_qkv and SwiGLU matvec (each workgroup sums x² while staging x and
// scales its dots by 1/rms): compute/gpu lowers a llama layer to 7 kernels
// (residual adds as matvec epilogues).
//
// # Performance
//
// bench-kernels (cmd/webgguf) measures matvec GB/s and matmul GFLOP/s;
// BENCH.md holds H200 numbers and what limits them.
package shaders
