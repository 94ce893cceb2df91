package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webgguf/webgguf/scripts/harness"
)

// gpuEngine is one engine configuration of the GPU bench.
type gpuEngine struct {
	name, engine string // as printed; bench.js's engine
	query        string // further bench.js parameters
}

// gpuEngines: webgguf on WebGPU through the public API; wllama 3.8.1 with
// its default n_gpu_layers (it asks for WebGPU) on one thread and on two
// (its pthread build: the harness serves COOP/COEP, so the page is
// cross-origin isolated; 2 is this machine's core count, while wllama's
// own default would be hardwareConcurrency/2 = 1).
var gpuEngines = []gpuEngine{
	{"webgguf", "webgguf", "backend=webgpu"},
	{"wllama", "wllama", "wgpu=1&threads=1"},
	{"wllama-mt", "wllama", "wgpu=1&threads=2"},
}

// gpuResult is one engine's best figures over the runs (tok/s: best;
// memory: the largest seen).
type gpuResult struct {
	prefill, decode                 float64
	promptN                         int
	backend                         string
	wasm, gpuPeak, jsHeap, uaMemory float64
	evidence                        string
}

// BenchmarkBrowserGPU measures, in the same headless Chromium with WebGPU
// on (SwiftShader here), webgguf through its public API with backend
// 'webgpu' against wllama 3.8.1 asked for its WebGPU backend (one thread,
// then its multi-thread build on 2 threads), on the gotiny fixture and the
// generated ~100M model of BenchmarkBrowserCPU: prefill and decode tok/s,
// and peak memory: wasm linear memory and GPU buffer bytes (probe.js in
// each engine's worker, the same measurement for both), the JS heap of
// the workers (CDP Runtime.getHeapUsage summed over workers, sampled every
// 250 ms, peak) and measureUserAgentSpecificMemory() of the page with the
// model loaded. It prints the backend each engine actually ran on and why
// (wllama's WebGPU backend needs shader-f16, which SwiftShader lacks).
// Knobs: BENCH_REPS (prompt snippets, default 2 ≈ 128 tokens), BENCH_GEN
// (default 32), BENCH_RUNS (default 2, best kept), BENCH_MODEL (comma-separated name filters),
// BENCH_ENGINES (comma list of webgguf,wllama,wllama-mt),
// BENCH_PAGE_TIMEOUT (seconds per page, default 900: SwiftShader is slow).
// For a machine with a real GPU and no Go toolchain (the lent device):
// HARNESS_GPU=1 launches Chromium with the real-GPU flags (harness.Launch),
// BENCH_WEBGGUF names a webgguf CLI binary that makes the 100M model instead
// of `go run`, BENCH_MODELS adds models (name=/path/file.gguf,...),
// BENCH_WLLAMA_THREADS sets wllama-mt's threads (default 2), and
// HARNESS_PREBUILT supplies the wasm build (harness.BuildWasm).
// BENCH_WARM=full warms each engine on a prompt as long as the measured
// one (bench.js warm=full), so the measured prefill runs on warm step
// shapes; BENCH_PROFILE=1 prints webgguf's per-kernel GPU profile of its
// last decode step in the browser (bench.js profile=1); BENCH_DEPTH=N makes
// webgguf keep N greedy steps in flight (bench.js depth=N); BENCH_BATCH=N
// makes webgguf read N greedy tokens back through one map (bench.js
// batch=N; 1 turns batching off, unset keeps the engine's default);
// BENCH_GAPS=1 streams webgguf's completion and prints the intervals
// between tokens (bench.js gaps=1).
func BenchmarkBrowserGPU(b *testing.B) {
	root, err := harness.RepoRoot(".")
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	genCmd := []string{"go", "run", "./cmd/webgguf"}
	if w := os.Getenv("BENCH_WEBGGUF"); w != "" {
		genCmd = []string{w}
	}
	cmd := exec.CommandContext(context.Background(), genCmd[0], append(genCmd[1:], append(genArgs, "--out", filepath.Join(dir, "bench-100m-q4_k_m.gguf"))...)...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("webgguf gen: %v\n%s", err, out)
	}
	gen := envInt("BENCH_GEN", 32)
	reps := envInt("BENCH_REPS", 2)
	runs := envInt("BENCH_RUNS", 2)
	e := setupWith(b, dir, harness.Options{}) // HARNESS_GPU: the machine's GPU
	defer e.close()
	models := []struct{ name, url, file string }{
		{"gotiny-q4_k_m", "/testdata/models/gotiny-q4_k_m.gguf", filepath.Join(root, "testdata/models/gotiny-q4_k_m.gguf")},
		{"gen-100m-q4_k_m", "/models/bench-100m-q4_k_m.gguf", filepath.Join(dir, "bench-100m-q4_k_m.gguf")},
	}
	for _, nf := range strings.Split(os.Getenv("BENCH_MODELS"), ",") {
		name, file, ok := strings.Cut(nf, "=")
		if !ok {
			continue
		}
		// Served from the models folder through a link, so a large file
		// made elsewhere (e.g. by the CLI's gen on the GPU machine) is not copied.
		if err := os.Symlink(file, filepath.Join(dir, name+".gguf")); err != nil {
			b.Fatal(err)
		}
		models = append(models, struct{ name, url, file string }{name, "/models/" + name + ".gguf", file})
	}
	engines := gpuEngines
	if n := envInt("BENCH_WLLAMA_THREADS", 2); n != 2 {
		engines = append([]gpuEngine(nil), gpuEngines...)
		for i := range engines {
			if engines[i].name == "wllama-mt" {
				engines[i].query = fmt.Sprintf("wgpu=1&threads=%d", n)
			}
		}
	}
	if s := os.Getenv("BENCH_ENGINES"); s != "" {
		all := engines
		engines = nil
		for _, g := range all {
			if strings.Contains(","+s+",", ","+g.name+",") {
				engines = append(engines, g)
			}
		}
	}
	var table []string
	for range b.N {
		for _, m := range models {
			if !modelWanted(m.name) {
				continue
			}
			fi, err := os.Stat(m.file)
			if err != nil {
				b.Fatal(err)
			}
			best := map[string]*gpuResult{}
			for i := range runs {
				for _, g := range engines {
					q := m.url + "&probe=1&umem=1&" + g.query
					if os.Getenv("BENCH_WARM") == "full" {
						q += "&warm=full"
					}
					if os.Getenv("BENCH_PROFILE") != "" {
						q += "&profile=1"
					}
					if d := envInt("BENCH_DEPTH", 0); d > 0 {
						q += fmt.Sprintf("&depth=%d", d)
					}
					if n := envInt("BENCH_BATCH", 0); n > 0 {
						q += fmt.Sprintf("&batch=%d", n)
					}
					if os.Getenv("BENCH_GAPS") != "" {
						q += "&gaps=1"
					}
					r, heap := e.pageHeap(b, g.engine, q, reps, gen, time.Duration(envInt("BENCH_PAGE_TIMEOUT", 900))*time.Second)
					res := checkGPURun(b, g.name, r, gen, fi.Size())
					res.jsHeap = heap
					b.Logf("%s %s run %d: backend %s (%s); prefill %d tok %.1f tok/s, decode %d tok %.2f tok/s; wasm %.1f MiB, GPU buffers peak %.1f MiB, workers' JS heap peak %.1f MiB, UA memory %.1f MiB; load %.0f ms; text %.40q",
						m.name, g.name, i, res.backend, res.evidence, r.Timings.PromptN, r.Timings.PromptPerSecond, r.Timings.PredictedN,
						r.Timings.PredictedPerSecond, res.wasm/mib, res.gpuPeak/mib, heap/mib, res.uaMemory/mib, r.LoadMs, r.Text)
					if r.Profile != "" {
						b.Logf("%s %s run %d, in the browser: %s", m.name, g.name, i, r.Profile)
					}
					if gp := r.Gaps; gp != nil {
						b.Logf("%s %s run %d: %d intervals between tokens, ms: p10 %.3f, p50 %.3f, p90 %.3f, max %.3f; in order %v",
							m.name, g.name, i, gp.N, gp.P10, gp.P50, gp.P90, gp.Max, gp.Ms)
					}
					if p := best[g.name]; p == nil {
						best[g.name] = &res
					} else {
						p.prefill, p.decode = max(p.prefill, res.prefill), max(p.decode, res.decode)
						p.wasm, p.gpuPeak, p.jsHeap, p.uaMemory = max(p.wasm, res.wasm), max(p.gpuPeak, res.gpuPeak), max(p.jsHeap, res.jsHeap), max(p.uaMemory, res.uaMemory)
					}
				}
			}
			w := best["webgguf"]
			for _, g := range engines {
				r := best[g.name]
				ratio := func(a, b float64) string {
					if w == nil || b <= 0 {
						return "–"
					}
					return fmt.Sprintf("%.2f×", a/b)
				}
				var rp, rd, rm string
				if w != nil && g.name != "webgguf" {
					rp, rd = ratio(w.prefill, r.prefill), ratio(w.decode, r.decode)
					rm = ratio(w.wasm+w.gpuPeak+w.jsHeap, r.wasm+r.gpuPeak+r.jsHeap)
					b.ReportMetric(w.decode/r.decode, m.name+"-decode-ratio-vs-"+g.name)
					b.ReportMetric(w.prefill/r.prefill, m.name+"-prefill-ratio-vs-"+g.name)
				}
				table = append(table, fmt.Sprintf("| %s | %s | %s | %d | %.1f | %.2f | %.1f | %.1f | %.1f | %.1f | %s | %s | %s |",
					m.name, g.name, r.backend, r.promptN, r.prefill, r.decode, r.wasm/mib, r.gpuPeak/mib, r.jsHeap/mib, r.uaMemory/mib, rp, rd, rm))
			}
		}
	}
	b.Logf("\n| model | engine | backend used | prompt tok | prefill tok/s | decode tok/s | wasm MiB | GPU buffers peak MiB | workers' JS heap peak MiB | UA memory MiB | webgguf prefill ratio | webgguf decode ratio | webgguf memory ratio (wasm+GPU+JS) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n%s",
		joinLines(table))
}

const mib = 1 << 20

// pageHeap runs bench.html (model carrying the further parameters) while
// sampling the workers' JS heaps; it returns the page's result and the
// peak of the summed used JS heap of all workers (the engines' workers and
// wllama's pthreads).
func (e *env) pageHeap(tb testing.TB, engine, model string, reps, gen int, timeout time.Duration) (run, float64) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var peak float64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			hs, err := e.browser.WorkerHeaps(ctx)
			if err == nil {
				var sum float64
				for _, h := range hs {
					sum += h.Used
				}
				peak = max(peak, sum)
			}
			select {
			case <-ctx.Done():
			case <-time.After(250 * time.Millisecond):
			}
		}
	}()
	r := e.page(tb, engine, model, reps, gen, timeout)
	cancel()
	wg.Wait()
	return r, peak
}

// checkGPURun fails tb unless r holds complete timings, and works out from
// the probe which backend the engine actually used: webgguf's own report
// must agree with a device made and GPU buffers at least its backend
// bytes; wllama runs on WebGPU only if its device was made and it holds
// GPU buffers of at least half the file's bytes — else it is on the CPU,
// and evidence says why.
func checkGPURun(tb testing.TB, name string, r run, gen int, fileBytes int64) gpuResult {
	tb.Helper()
	t := r.Timings
	if t.PromptN < 8 || t.PromptMs <= 0 || t.PredictedN != gen || t.PredictedMs <= 0 || t.PredictedPerSecond <= 0 {
		tb.Errorf("%s: incomplete timings %+v", name, t)
	}
	if !r.CrossOriginIsolated || !r.HasGPU {
		tb.Errorf("%s: page isolated %v, navigator.gpu %v: want both", name, r.CrossOriginIsolated, r.HasGPU)
	}
	res := gpuResult{prefill: t.PromptPerSecond, decode: t.PredictedPerSecond, promptN: t.PromptN, uaMemory: r.UAMemory}
	var p *probeSnap
	for i := range r.Probe {
		if r.Probe[i].Tag == r.Engine {
			p = &r.Probe[i]
		}
	}
	if p == nil {
		tb.Errorf("%s: no probe snapshot (got %d)", name, len(r.Probe))
		return res
	}
	res.wasm, res.gpuPeak = p.WasmBytes, p.GPUPeak
	var ev []string
	if p.Adapter != nil {
		ev = append(ev, fmt.Sprintf("adapter %s fallback=%v features %v", p.Adapter.Description, p.Adapter.Fallback, p.Adapter.Features))
	}
	if p.Requested != nil {
		ev = append(ev, fmt.Sprintf("asked for %v", p.Requested))
	}
	if p.DeviceError != "" {
		ev = append(ev, "device refused: "+p.DeviceError)
	}
	switch r.Engine {
	case "webgguf":
		res.backend = r.Backend
		if r.Backend != "webgpu" || !p.Device || p.GPUPeak < float64(r.BackendBytes)/2 {
			tb.Errorf("webgguf: backend %q, device %v, GPU buffers peak %.0f B for %d backend bytes: not on WebGPU", r.Backend, p.Device, p.GPUPeak, r.BackendBytes)
		}
		ev = append(ev, fmt.Sprintf("its backendBytes %.1f MiB", float64(r.BackendBytes)/mib))
	case "wllama":
		res.backend = "cpu"
		if p.Device && p.GPUPeak >= float64(fileBytes)/2 {
			res.backend = "webgpu"
		}
		res.backend += fmt.Sprintf(" (%d thread(s))", r.Threads)
		for _, l := range r.WllamaLog {
			if strings.Contains(l, "offloaded") || strings.Contains(strings.ToLower(l), "webgpu") || strings.Contains(l, "model buffer size") {
				ev = append(ev, strings.TrimSpace(l))
			}
		}
	}
	res.evidence = strings.Join(ev, "; ")
	return res
}
