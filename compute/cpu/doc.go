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
// decode products (below), still 2–6× closer to float64 than llama.cpp.
//
// # Kernels and where the time goes
//
// Matrix products split the weight rows over Threads goroutines. With at
// most three token rows (decode) each weight row goes through a fused
// dequantize-and-dot kernel (dotq.go: f32, f16, q8_0, q4_0, q4_K, q6_K;
// other formats expand a row with gguf.DequantizeInto). With more rows
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
// uint64 and unpack with shifts (dotq_wide.go, q6_K with SWAR masks) are
// 1.4–2.4× faster than the table kernels, so the wasm builds select them,
// and in the browser q4_K decode products use dotq_xq.go: activations quantized to 10
// bits and packed in 16-bit lanes so that one 64-bit multiply does four
// multiply-adds (~1.5× the wide kernel). Go calls are costly under wasm
// (a helper called per eight weights cost the q6_K kernel 20%): inner
// loops call nothing. Where a decode token's time goes in the browser
// (gotiny, 26M weights, ~40 ms per token before this work): the matrix
// products (q4_K 20.6M weights, q6_K 5.4M: output and half the ffn_down),
// then attention at depth (~10%). scripts/bench measures it against
// wllama. Prefill keeps the f32 dot2x4 path under wasm: the
// quantized-activation kernel per token row does 0.8–0.9 G weight-token
// products/s there against dot2x4's 1.1–1.4 (BenchmarkPrefillQ4K).
package cpu
