//go:build !js

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webgguf/webgguf/engine/refcheck"
	"github.com/webgguf/webgguf/scripts/harness"
)

// fixtureModels are every fixture model with weights (the vocab-only files
// have nothing to evaluate).
var fixtureModels = []string{
	"tiny-llama-f16", "tiny-llama-q8_0", "tiny-llama-q4_0", "tiny-llama-q4_k_m",
	"tiny-llama-mixed", "tiny-llama-untied-q8_0", "tiny-qwen2-q8_0", "tiny-qwen3-q8_0",
	"gotiny-q4_k_m",
}

// TestBrowserCPUFallback runs the engine in a Web Worker of headless
// Chromium launched without WebGPU and checks that (1) the worker sees no
// usable WebGPU (no adapter; and, in a second worker, no navigator.gpu), the engine host's "auto" picks the CPU backend and reports
// its memory, and an explicit "webgpu" fails with a gpu-unavailable error;
// (2) every fixture model's teacher-forced logits, computed in the worker
// on the CPU, pass refcheck's rule against the float64 reference (top-1
// equal wherever the exact margin exceeds the tolerance derived from
// llama.cpp's own deviation, top-5 logits and lse within it), judged here
// in Go from the summaries the worker posted; (3) the first prompts' greedy
// continuations match llama.cpp's up to near ties (judged in the worker,
// which has the full logits rows).
func TestBrowserCPUFallback(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: skipped with -short")
	}
	ctx := context.Background()
	root, err := harness.RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	assets, err := harness.BuildWasm(ctx, root, "./compute/cpu/internal/browsercheck", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// The strict CSP (no 'unsafe-eval'): worker.js loads webgpu-runtime.js
	// as a script, so the explicit "webgpu" load gets as far as asking for
	// an adapter without eval.
	srv, err := harness.ServeWith(root, map[string]string{"/cpucheck/": assets}, nil, harness.CSP)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	b, err := harness.Launch(ctx, harness.Options{ArtifactDir: os.Getenv("HARNESS_ARTIFACTS"), NoWebGPU: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	res, err := b.RunPage(ctx, srv.URL+"/compute/cpu/internal/browsercheck/page.html?models="+strings.Join(fixtureModels, ","), 10*time.Minute)
	if err != nil {
		t.Fatalf("%v\nconsole:\n%s\nscreenshot: %s", err, strings.Join(res.Console, "\n"), res.Screenshot)
	}
	var rep Report
	if err := json.Unmarshal(res.Value, &rep); err != nil {
		t.Fatalf("page result %.500s: %v", res.Value, err)
	}
	if rep.Error != "" {
		t.Fatalf("worker: %s", rep.Error)
	}
	p := rep.Probe
	t.Logf("probe: %+v", p)
	if p.Adapter {
		t.Errorf("a WebGPU adapter was granted in a browser launched without WebGPU")
	}
	if p.AutoBackend != "cpu" || p.AutoBytes <= 0 {
		t.Errorf("auto load: backend %q with %d bytes, want cpu with its memory reported", p.AutoBackend, p.AutoBytes)
	}
	if p.WebGPUKind != "gpu-unavailable" {
		t.Errorf("explicit webgpu load: kind %q (%s), want gpu-unavailable", p.WebGPUKind, p.WebGPUError)
	}
	// Without navigator.gpu at all: the same choices.
	h := rep.Hidden
	t.Logf("probe without navigator.gpu: %+v", h)
	if rep.HiddenError != "" || h.NavigatorGPU || h.AutoBackend != "cpu" || h.AutoBytes <= 0 || h.WebGPUKind != "gpu-unavailable" {
		t.Errorf("without navigator.gpu: %+v (%s); want no gpu, auto → cpu with its memory, webgpu → gpu-unavailable", h, rep.HiddenError)
	}
	if len(rep.Results) != len(fixtureModels) {
		t.Fatalf("%d results for %d models", len(rep.Results), len(fixtureModels))
	}
	for i, r := range rep.Results {
		name := fixtureModels[i]
		t.Run(name, func(t *testing.T) {
			if r.Model != name || r.Error != "" {
				t.Fatalf("%s: %s", r.Model, r.Error)
			}
			llama, err := refcheck.Load(filepath.Join(root, "testdata", "ref", name+".ref.json"))
			if err != nil {
				t.Fatal(err)
			}
			exact, err := refcheck.Load(filepath.Join(root, "testdata", "ref", name+".exact.json"))
			if err != nil {
				t.Fatal(err)
			}
			judged, _, err := refcheck.JudgeFiles(&r.Eval, llama, exact)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range judged.Failures {
				t.Error(f)
			}
			for _, f := range r.GreedyFailures {
				t.Error("greedy:", f)
			}
			if judged.Positions == 0 || judged.Top1Checked == 0 || r.GreedySteps == 0 {
				t.Errorf("nothing checked: %d positions, %d top-1 checked, %d greedy steps", judged.Positions, judged.Top1Checked, r.GreedySteps)
			}
			// Weights stay quantized: the backend holds the file's tensor
			// bytes plus the KV cache and arenas, never an f32 expansion.
			if r.BackendBytes < r.WeightBytes || r.BackendBytes > 2*r.WeightBytes+64<<20 {
				t.Errorf("backend holds %d bytes for %d bytes of weights", r.BackendBytes, r.WeightBytes)
			}
			t.Logf("tol %.4f, max dev %.5f, top-1 %d/%d (%d near ties), %d positions, %d greedy steps; weights %d B, backend %d B; load %.0f ms, eval %.0f ms",
				judged.Tol.Logit, judged.MaxDev, judged.Top1Equal, judged.Top1Checked, judged.NearTies, judged.Positions, r.GreedySteps,
				r.WeightBytes, r.BackendBytes, r.LoadMs, r.EvalMs)
		})
	}
}
