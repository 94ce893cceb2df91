// Package bench holds the browser benchmark of the CPU fallback against
// wllama 3.8.1 (llama.cpp compiled to wasm), single-threaded, in the same
// headless Chromium launched without WebGPU.
//
// bench.html runs one engine per tab: webgguf through its public page API
// (jsbindings, backend 'cpu', the engine in its Web Worker) or wllama from
// the devDependency in node_modules (package.json and its lock here;
// served from this origin, no CDN), one thread and no GPU layers. Both
// complete the same prompt greedily with EOS ignored and report their own
// llama-server-style timings (prompt tok/s = prefill, predicted tok/s =
// decode). The smoke test runs in make test; BenchmarkBrowserCPU (make
// bench-browser) measures the fixture gotiny-q4_k_m and a ~100M-parameter
// model generated at bench time with `webgguf gen`.
//
// BenchmarkBrowserGPU (make bench-browser-gpu, gpu_test.go) runs the same
// page in Chromium with WebGPU on: webgguf with backend 'webgpu' against
// wllama asked for its WebGPU backend on one and two threads. probe.js,
// injected into both engines' workers, measures GPU buffers, wasm memory
// and device requests the same way for both and shows which backend each
// really used (wllama drops to its CPU path without shader-f16).
package bench
