// Package gpu is the WebGPU backend of the compute graph: it implements
// compute.Backend on a webgpu.Device, natively (wgpu-native) and in the
// browser (GOOS=js).
//
// # Lifetime of GPU objects
//
// Everything is created at load: LoadWeight streams each weight in chunks
// (1 MiB from engine.Load) straight into its place in the weight buffers
// (see Weight placement; in the browser,
// LoadWeightJS takes JS-owned chunks, 4 MiB from the worker's
// loader, e.g. from OPFS, to queue.writeBuffer
// without copying them through Go memory); AllocCache creates
// the zeroed KV cache, f16 by default as llama.cpp's (packed two per u32,
// read and written with f32 arithmetic, on devices with and without
// shader-f16; SetKVType(f32) for comparison); Compile creates the graph's activation arena, the
// step buffer (token ids, output rows and the per-dispatch uniform
// parameters), every pipeline and bind group, and records the whole graph
// into one webgpu.Tape. Program.Run then writes the step buffer once (only
// the ids and the parameters that change with the step: positions and row
// counts), runs the tape (one submit) and, only when logits are asked for,
// reads them back through preallocated readback rings. RunArgmax samples
// greedily on the GPU and reads back only the token id; its tape also
// copies the id into the step buffer's token slot, so that SubmitArgmax
// (Pipeliner, pipeline.go) can submit the next step, fed that id on the
// GPU, before the id is read; in the browser the ids of several steps come
// back through one map (readback_batch.go). Nothing is created
// in Run: the device's creation counter (webgpu.Stats) stays put, which
// the tests check.
//
// # Weight placement
//
// engine.Load hands the backend every weight before the first streams
// (PlanWeights), and webgpu.NewPlan packs them, in file order, into a few
// large buffers: each at most maxBufferSize and DefaultMaxWeightBuffer
// (1 GiB: browsers may fail to allocate larger single buffers), every
// tensor at an offset aligned to minStorageBufferOffsetAlignment and bound
// as (buffer, offset, size padded to 16). A tensor larger than
// maxStorageBufferBindingSize (or than a buffer) is split by whole rows
// (rows of blocks for quantized formats) into parts, each its own binding;
// split points fall on multiples of alignment/4 rows, so that a part's
// slice of an f32 output vector (4 bytes a row) is also an aligned binding
// offset, and a split tensor's parts lie back to back. A weight loaded
// without a plan gets buffers of its own, split the same way.
// SetWeightLimits lowers the limits (tests split tiny models with it).
//
// Streaming writes a chunk that straddles a part boundary as one write per
// part: natively a sub-slice, in the browser (LoadWeightJS) a subarray view
// of the JS chunk, so weights still never pass through Go memory.
//
// Kernels read a split weight part by part (split.go), and only then:
// without splits the dispatches are exactly those of a whole-weight model.
// get_rows runs once per part, each dispatch writing the rows whose token
// id falls in its range (shaders.GetRowsParams.First/Total), so a tied
// embedding is looked up from the same parts the lm head reads. Matvec
// (decode; plain, residual, SwiGLU, with a fused norm) runs once per part,
// binding its slice of the output, bias and residual at the part's first
// row. The tiled matmul (prefill) strides its output by the whole N, so
// each part writes an M×rows block of a scratch buffer and M copies per
// part put the rows in place (a residual epilogue then runs as an add):
// for the lm head M is the step's output rows (at most 32). matvec_qkv
// takes Q, K and V whole, so a layer with a split projection is unfused
// into three matvecs (and its RMSNorm runs on its own). Any other kernel
// given a split weight is a typed error, never a partial read. Real cases:
// Llama 3.2 1B's tied 128256×2048 embedding is 501 MiB in f16 and 266 MiB
// in q8_0; under Chrome's default 128 MiB binding limit that is 4 and 3
// parts (and over the 256 MiB maxBufferSize wgpu-native reports on some
// devices either way): 4 (3) get_rows and 4 (3) lm-head matvec dispatches
// per decode step instead of 1 each.
//
// # Packed weights and matvec shapes
//
// Weights of the formats with a packed layout (shaders.Pack: q4_0 and q8_0
// with K a multiple of 256) are rewritten into it on the GPU, in place and
// once, before a program is lowered (repack.go): their quants become
// 16-byte-aligned planes a warp reads with one vector load per lane. Every
// kernel binding such a weight is built with Key.Packed, and ReadWeight
// unpacks. Matvec and matvec_qkv keys get their workgroup shape per N×K
// from shaders.MatvecTuned (tune.go), capped at 128 threads on CPU
// adapters. On the H200 they cut the GPU time of a 1B q4_0 decode token
// from 1.86 to 1.50 ms.
//
// # Lowering
//
// Each graph node becomes one or two kernels of package shaders: GetRows
// and SelectRows use get_rows (SelectRows as an f32 table over the arena),
// MatMul is matvec in the decode graph (B = 1) and the tiled matmul
// otherwise, Attention for B = 1 is the one-pass attn_decode while a step
// attends to at most DecodeAttention.ShortMax positions and flash-decoding
// (split + merge) beyond (two tape variants picked per step,
// attn_decode.go; the split kernel serves up to 4 query heads of a GQA
// group from one workgroup, reading each cached row once for them), and the
// tiled prefill kernel otherwise. Fusions
// (fuse.go, norm.go) cut decode to 6 kernels per llama layer (5 without
// the merge): matvec_qkv for the three projections, with both RoPEs and
// the cache write in its epilogue for normal RoPE (rope_kv, a kernel of
// its own, for NEOX models, and for Qwen3 and Gemma 3, whose per-head q/k
// RMSNorms it computes too), residual adds as matvec/matmul epilogues,
// SwiGLU (and GeGLU: the activation is in the kernel's key) as one matvec
// (at prefill one SwiGLU matmul),
// each RMSNorm inside the matvec that reads it, a post-norm (Gemma's
// post-attention and post-FFN norms) and its residual add as one rms_norm
// (postnorm.go); RoPE rotates its source's buffer in place when the source
// dies there. Activations get a buffer each from a pool (WebGPU tracks
// usage per buffer, so one arena with sub-ranges would conflict). 1-D
// weights (norm scales, biases, rope_freqs) are expanded to f32 once at
// Compile. All arithmetic is f32 (f16 data unpacked in f32), matching the
// CPU backend within the refcheck tolerance.
//
// The SIGSEGVs that lavapipe raised in its own threads during these tests
// (CI, 2026-11-26, and earlier runs, blamed then on lavapipe's worker
// threads and a freed map handle) were wgpu-native v22 freeing work in
// flight: its blocking Poll gives up after 5 s and then treats the
// submission as finished, resetting its command pool and destroying the
// buffers released meanwhile. A cold shader cache (as on every CI run)
// makes lavapipe JIT-compile inside the step, which then outlasts 5 s. The
// Vulkan validation layer showed VUID-vkResetCommandPool-commandPool-00040
// and VUID-vkDestroyBuffer-buffer-00922 before each crash; webgpu now waits
// by polling without blocking (see webgpu's waitMap), and the same cold
// runs are clean. Tests still run lavapipe with LP_NUM_THREADS=0 (TestMain).
package gpu
