// Command gpuloadcheck is a GOOS=js program that proves Host.LoadSource in
// a browser: in a Web Worker (which loads webgpu/runtime.js as a script, so
// the harness's strict CSP holds) it loads a fixture model from the
// 127.0.0.1 test server through opfs.URLSource onto the WebGPU backend,
// measures how much wasm memory the load grew, and generates greedily for
// the prompts it is given. The native test in this package drives it in
// headless Chromium and judges the ids against llama.cpp's fixtures.
package main
