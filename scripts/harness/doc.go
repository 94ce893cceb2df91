// Package harness runs in-page tests and benchmarks in real headless
// Chromium: it builds the engine's wasm, serves the repository on 127.0.0.1
// with cross-origin isolation headers, launches Debian's Chromium with a
// WebGPU adapter (SwiftShader on machines without a GPU), loads a page that
// sets globalThis.harnessDone to a promise, and returns what that promise
// resolves to, with the console output (page and workers) and, when the page
// fails, a screenshot.
//
// Typical use from a test:
//
//	assets, _ := harness.BuildWasm(ctx, root, "./wasm", dir)
//	_ = harness.BuildTestWasm(ctx, root, dir) // engine-test.wasm: the test messages
//	srv, _ := harness.Serve(root, map[string]string{"/build/": assets})
//	b, _ := harness.Launch(ctx, harness.Options{})
//	res, err := b.RunPage(ctx, srv.URL+"/scripts/harness/pages/e2e.html", time.Minute)
//
// To run one page by hand: go run ./scripts/harness/runpage PAGE.
package harness
