// Package cpu is the pure-Go backend of package compute: it executes a
// compute.Graph directly, one node after another, with weights kept in
// memory in their GGUF (quantized) form. It is the native reference path
// and the fallback where WebGPU is missing.
//
// Arithmetic is f32 with f32 accumulation, except the RMS-norm sum of
// squares and the softmax denominator, which ggml also accumulates in
// double. Natively, activations are not quantized (llama.cpp quantizes them
// to 8 bits against quantized weights); logits therefore land closer to the
// float64 reference than llama.cpp's own (max |Δ| ~2e-5 on the fixtures).
// The browser build (js/wasm) quantizes activations to 10 bits for q4_K
// products and to 16 bits for q6_K decode products (below), and passes
// engine/refcheck's rule, built on llama.cpp's own deviation from float64
// (TestXQFixturesRefcheck).
//
// # Kernels and where the time goes
//
// Matrix products split the weight rows over Threads goroutines. With at
// most three token rows (decode) each weight row goes through a fused
// dequantize-and-dot kernel (dotq.go: f32, f16, q8_0, q4_0, q4_K, q6_K;
// dotq_ternary.go: tq1_0, tq2_0; other formats expand a row with
// gguf.DequantizeInto). I2_S weights, whose one scale follows a tensor's
// rows, are refused with a WeightError. With more rows
// (prefill) a row is expanded once and multiplied with four token rows at
// a time, two weight rows per pass (dot2x4: eight accumulators).
//
// Measured on one core of the development machine (thread CPU time):
// fused dots cost 0.35–0.65 ns per weight (q4_K 0.37, q8_0 0.36, q4_0
// 0.40, q6_K 0.65), so gotiny-q4_k_m (26M weights) decodes at ~73 tokens
// per CPU-second; prefill reaches ~8 GFLOP/s, two scalar FP operations per
// cycle, the ceiling without SIMD (Go has none outside assembly). Integer
// dots against 8-bit activations, llama.cpp's approach, do not pay in
// scalar Go one product at a time: a q4_K×q8 integer kernel measured 0.62
// ns per weight here and was slower under wasm too.
//
// Under GOARCH=wasm (the browser fallback; no SIMD) the same code runs
// 2–5× slower per weight; there, kernels that load eight quants as one
// uint64 and unpack with shifts (dotq_wide.go) beat the table kernels, so
// the wasm builds select them. The browser build (GOOS=js) goes further
// and multiplies against quantized activations with SWAR integer products,
// several multiply-adds per 64-bit multiply:
//
//   - q4_K decode: activations at 10 bits per 32 in 16-bit lanes, four
//     products per multiply, two weight rows per pass (dotq_xq.go,
//     dotq_xq2.go): 1.14 µs per 4096 weights per row in V8;
//   - q6_K decode: activations at 16 bits per 256 in 32-bit lanes, two
//     products per multiply, exact integer sums (dotq_x16.go): 2.2 µs per
//     4096 against 4.2 for the wide float kernel;
//   - q4_K prefill: one weight row against four token rows (dotq_xq4.go),
//     1.4× the expand-and-dot2x4 path that other formats keep.
//
// Go's wasm code generation shapes these kernels more than the arithmetic
// does: every loop back-edge becomes a jump through the function's resume
// dispatch (a br_table), calls are costly, and only 16 values live in
// registers (locals) before spilling to the Go stack in linear memory. So
// inner loops are written out (the q4_K kernel went from 2.3 to 1.3 µs per
// 4096 weights by unrolling its 8-byte loop alone), call nothing, and keep
// few values live (a two-row q6_K kernel spilled and was slower than two
// one-row passes). Writing out whole 256-weight blocks went the other way:
// 2.26 → 3.0 µs for the two-row q4_K kernel, 2.2 → 3.0 for q6_K. i64
// operations are native in V8: an int32 dot product ran as fast as an
// int64 one (2.48 against 2.45 µs per 4096 elements; Go emits i64
// operations plus sign extensions for int32), so more work per
// instruction has to come from SWAR in 64-bit words. Softmax, SwiGLU and
// GeGLU use expf (expf.go), soft-caps its tanhf, not the float64 math.Exp
// and math.Tanh routines (24 ns a call under wasm).
//
// Attention visits only the positions a query sees: a sliding window of
// W costs W positions at any depth. Every cache is indexed modulo its own
// length (a ring holds position p in slot p mod Ne[1]), so a window that
// wraps around a ring is read as two runs of rows.
//
// Where a decode token's time goes in the browser build (V8 CPU time,
// BenchmarkDecodeProfile on the bench's generated 100M q4_k_m model at
// depth 160, 51 ms per token, from 86 before this work): q6_K products
// 22 ms (the 32000-row output projection 15 ms, ffn_down of six layers
// 6 ms), q4_K products 23 ms, attention 3.0 ms, everything else ~2 ms.
// scripts/bench measures it against wllama.
package cpu
