// Command browsercheck proves the CPU fallback in a browser without WebGPU:
// a GOOS=js program that runs in a Web Worker of headless Chromium started
// without WebGPU. It checks that the engine host's "auto" backend falls
// back to the CPU (and that an explicit "webgpu" fails with a typed
// gpu-unavailable error) when navigator.gpu is missing or grants no
// adapter, then evaluates every prompt of each fixture model teacher-forced
// on the CPU backend and posts the logits summaries (the schema of
// testdata/ref, as `webgguf eval` writes them) to the page. The native test
// of this package judges them in Go with engine/refcheck against the
// float64 reference and llama.cpp's own deviation.
package main
