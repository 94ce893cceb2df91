// Package cpu is the pure-Go backend of package compute: it executes a
// compute.Graph directly, one node after another, with weights kept in
// memory in their GGUF (quantized) form and dequantized a row at a time
// inside the matrix products. It is the native reference path and the
// fallback where WebGPU is missing (Go's wasm target has no SIMD, so the
// kernels are plain scalar loops, unrolled where it pays).
//
// Arithmetic is f32 with f32 accumulation, except the RMS-norm sum of
// squares and the softmax denominator, which ggml also accumulates in
// double. Activations are not quantized (llama.cpp quantizes them to 8 bits
// against quantized weights); logits therefore land closer to the float64
// reference than llama.cpp's own.
package cpu
