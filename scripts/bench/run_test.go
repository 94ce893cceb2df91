package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webgguf/webgguf/scripts/harness"
)

// timings are the llama-server names both engines report.
type timings struct {
	PromptN            int     `json:"prompt_n"`
	PromptMs           float64 `json:"prompt_ms"`
	PromptPerSecond    float64 `json:"prompt_per_second"`
	PredictedN         int     `json:"predicted_n"`
	PredictedMs        float64 `json:"predicted_ms"`
	PredictedPerSecond float64 `json:"predicted_per_second"`
}

// run is what bench.js resolves to.
type run struct {
	Engine              string
	CrossOriginIsolated bool
	HasGPU              bool
	LoadMs              float64
	Timings             timings
	Text                string
	Backend             string
	BackendBytes        int64
	Multithread         bool
	Threads             int
	WebGPU              bool
	// GenStartMs and GenEndMs (Unix ms) bracket the timed completion.
	// PrefillShare and DecodeShare are the browser's CPU time per wall
	// second (cpushare_test.go) over the completion's first PromptMs and
	// its last PredictedMs (the engine's own phase timings placed inside
	// the page's stamps; message latency makes them a few ms off); 0 if
	// unmeasured.
	GenStartMs, GenEndMs      float64
	PrefillShare, DecodeShare float64
	// The GPU bench's measurements (bench.js with probe=1, umem=1):
	// webgguf's own wasm memory figure after the load, the probes'
	// snapshots (probe.js), wllama's native log lines about its backend and
	// the page's measureUserAgentSpecificMemory() bytes.
	WasmAfterLoad int64
	Probe         []probeSnap
	WllamaLog     []string
	UAMemory      float64
	// Profile is webgguf's per-kernel GPU profile of its last decode
	// step (bench.js with profile=1), or "".
	Profile string
	// Gaps are webgguf's intervals between streamed tokens in ms
	// (bench.js with gaps=1), or nil.
	Gaps *struct {
		N                  int
		P10, P50, P90, Max float64
		Ms                 []float64
	}
}

// probeSnap is one worker's probe.js state.
type probeSnap struct {
	Tag        string
	GPULive    float64
	GPUPeak    float64
	GPUBuffers int
	Adapter    *struct {
		Features                          []string
		Fallback, None                    bool
		Vendor, Architecture, Description string
	}
	Requested   []string
	Device      bool
	DeviceError string
	Lost        string
	WasmBytes   float64
	Memories    int
}

// env is a server and a browser without WebGPU for the bench page.
type env struct {
	srv     *harness.Server
	browser *harness.Browser
}

func (e *env) close() {
	e.browser.Close()
	_ = e.srv.Close()
}

// setup builds the engine's wasm, serves the repository (models under
// /models/ from modelDir) and launches Chromium without WebGPU.
func setup(tb testing.TB, modelDir string) *env {
	tb.Helper()
	return setupWith(tb, modelDir, harness.Options{NoWebGPU: true})
}

// setupWith is setup with the browser's options (the GPU bench keeps
// WebGPU on: SwiftShader).
func setupWith(tb testing.TB, modelDir string, opts harness.Options) *env {
	tb.Helper()
	ctx := context.Background()
	root, err := harness.RepoRoot(".")
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "scripts/bench/node_modules/@wllama/wllama/esm/wasm/wllama.wasm")); err != nil {
		tb.Fatalf("wllama is not installed: run `npm ci` in scripts/bench (make deps does): %v", err)
	}
	assets, err := harness.BuildWasm(ctx, root, "./wasm", tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	// bench.js loads the test engine for the page knobs (profile, depth, batch).
	if err := harness.BuildTestWasm(ctx, root, assets); err != nil {
		tb.Fatal(err)
	}
	mounts := map[string]string{"/jsbindings/dist/": assets}
	if modelDir != "" {
		mounts["/models/"] = modelDir
	}
	// wllama starts its workers from blob: URLs; the harness's strict CSP
	// (which our engine passes) would refuse them.
	csp := strings.Replace(harness.CSP, "worker-src 'self'", "worker-src 'self' blob:", 1)
	csp = strings.Replace(csp, "script-src 'self'", "script-src 'self' blob:", 1)
	srv, err := harness.ServeWith(root, mounts, nil, csp)
	if err != nil {
		tb.Fatal(err)
	}
	opts.ArtifactDir = os.Getenv("HARNESS_ARTIFACTS")
	b, err := harness.Launch(ctx, opts)
	if err != nil {
		_ = srv.Close()
		tb.Fatal(err)
	}
	return &env{srv: srv, browser: b}
}

// page runs bench.html for one engine and returns its result.
func (e *env) page(tb testing.TB, engine, model string, reps, gen int, timeout time.Duration) run {
	tb.Helper()
	url := fmt.Sprintf("%s/scripts/bench/bench.html?engine=%s&model=%s&reps=%d&gen=%d", e.srv.URL, engine, model, reps, gen)
	cs := startCPUSampler()
	res, err := e.browser.RunPage(context.Background(), url, timeout)
	cs.close()
	if err != nil {
		tb.Fatalf("%s: %v\nconsole:\n%s\nscreenshot: %s", engine, err, strings.Join(res.Console, "\n"), res.Screenshot)
	}
	var r run
	if err := json.Unmarshal(res.Value, &r); err != nil {
		tb.Fatalf("%s: page result %.300s: %v", engine, res.Value, err)
	}
	r.PrefillShare = cs.share(r.GenStartMs, r.GenStartMs+r.Timings.PromptMs)
	r.DecodeShare = cs.share(r.GenEndMs-r.Timings.PredictedMs, r.GenEndMs)
	return r
}

// checkRun fails tb unless r is a real single-threaded CPU measurement of
// gen decoded tokens after a prompt.
func checkRun(tb testing.TB, r run, gen int) {
	tb.Helper()
	t := r.Timings
	if t.PromptN < 8 || t.PromptMs <= 0 || t.PredictedN != gen || t.PredictedMs <= 0 || t.PredictedPerSecond <= 0 {
		tb.Errorf("%s: incomplete timings %+v", r.Engine, t)
	}
	if !r.CrossOriginIsolated {
		tb.Errorf("%s: page not cross-origin isolated", r.Engine)
	}
	switch r.Engine {
	case "webgguf":
		if r.Backend != "cpu" || r.BackendBytes <= 0 {
			tb.Errorf("webgguf: backend %q, %d bytes", r.Backend, r.BackendBytes)
		}
	case "wllama":
		if r.Threads != 1 {
			tb.Errorf("wllama runs %d threads, want 1", r.Threads)
		}
	}
}
