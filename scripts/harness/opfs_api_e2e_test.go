package harness

import (
	"encoding/json"
	"testing"
	"time"
)

// TestOPFSPublicAPI runs pages/opfs-api.js in headless Chromium on WebGPU
// (SwiftShader) under the strict CSP: the public engine.load() reads a
// model downloaded with models.download from the worker's OPFS cache, a
// URL without caching, a posted File, and a URL whose server ignores Range
// (page fallback), each with greedy ids equal to llama.cpp's (also a
// cached load on the CPU backend, whose weights live in wasm memory); typed
// errors;
// a load cancelled midway; the generated ~70 MB model's load with wasm
// memory growth ≤ 32 MiB and the time to its first token; a cached load
// after the server has stopped. The ≥ 1 GiB case is BenchmarkOPFSLoad's.
func TestOPFSPublicAPI(t *testing.T) {
	e := setupOPFS(t, false)
	rep, heap := runOPFSPage(t, e, "opfs-api.html", 15*time.Minute)
	if len(rep.Tests) < 8 {
		t.Fatalf("page ran %d tests", len(rep.Tests))
	}
	var g struct {
		Size, WasmGrowth         int64
		LoadMs, GBps, UploadGBps float64
	}
	if err := json.Unmarshal(rep.Results["gen"], &g); err != nil {
		t.Fatalf("no result for the generated model: %v", err)
	}
	t.Logf("generated model of %d B: load() %.0f ms (%.3f GB/s; weights upload %.3f GB/s), wasm growth %.1f MiB, worker JS heap peak %.1f MiB",
		g.Size, g.LoadMs, g.GBps, g.UploadGBps, float64(g.WasmGrowth)/(1<<20), heap.Used/(1<<20))
}
