//go:build !js

package main

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webgguf/webgguf/internal/longtest"
	"github.com/webgguf/webgguf/scripts/harness"
)

// result mirrors main_js.go's Result.
type result struct {
	Model       string
	Adapter     string
	Tol         float64
	Positions   int
	Top1Checked int
	Top1Equal   int
	MaxDev      float64
	Failures    []string
	GreedySteps int
	Prompts     int
	LoadMs      float64
	EvalMs      float64
	Split       int
	Error       string
}

// TestBrowserFixtures loads tiny-llama q8_0 (split by rows), q4_k_m and
// mixed, tiny-gemma3 q4_k_m (sliding windows, ring caches, GeGLU) and
// tiny-gemma2 q4_0 (attention and final soft-caps), tiny-phi3 q8_0 (fused
// tensors read as views, partial rotary, LongRoPE factors), tiny-bitnet
// tq1_0 and tq2_0 (sub-norms, the ternary kernels) from the
// 127.0.0.1 test server into WebGPU (SwiftShader, no shader-f16) inside a
// Web Worker of headless Chromium, evaluates every prompt and judges the
// logits by refcheck's rule against llama.cpp's fixtures, in the page,
// with the first 10 tokens of llama.cpp's greedy run. Built with the long
// tag it adds the unsplit tiny-llama and tiny-gemma3 q8_0 and compares
// whole greedy runs.
func TestBrowserFixtures(t *testing.T) {
	ctx := context.Background()
	root, err := harness.RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	assets, err := harness.BuildWasm(ctx, root, "./compute/gpu/internal/browsercheck", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// The strict CSP (no 'unsafe-eval'): worker.js loads webgpu-runtime.js
	// as a script.
	srv, err := harness.ServeWith(root, map[string]string{"/gpucheck/": assets}, nil, harness.CSP)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	b, err := harness.Launch(ctx, harness.Options{ArtifactDir: os.Getenv("HARNESS_ARTIFACTS"), GPU: os.Getenv("HARNESS_GPU") == "1"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// ":split": weights split by rows under a 64 KiB binding limit and
	// streamed through LoadWeightJS in chunks straddling the parts; one
	// prompt and its greedy run (prefill and decode both read split weights).
	// ":tiled": the prefills through the register-tiled attention kernel
	// (gpu.PrefillAttention.OnSoftware; software adapters take the
	// per-query kernel otherwise, as the other models do), compiled by
	// Chromium's WGSL compiler rather than naga. One model of the four
	// rather than a fifth run: SwiftShader time is what the suite's browser
	// tests share.
	// The default run: every architecture, quantization mix and kernel
	// path once, on four pages of two models (pages of four ran past
	// their 10-minute limit on a loaded 2-core machine, where one model's
	// load took 40-175 s and its checks 45-135 s), each greedy run cut to
	// llama.cpp's first 10 tokens (SwiftShader decodes about 2 a second).
	// The unsplit q8_0 runs of llama and gemma3 repeat what ":split",
	// phi3 and gemma3's q4_k_m cover, so they and the full 32-token greedy
	// runs are the long suite's (make test-long). The two bitnet fixtures
	// (the same weights in TQ1_0 and TQ2_0) run as split checks, about a
	// minute each (load 25-30 s, two prompts and 8 split decode steps
	// 36-41 s); whole, one costs about 3.5 minutes, so the long suite
	// adds tiny-bitnet-tq2_0 unsplit.
	groups := [][]string{
		{"tiny-llama-q4_k_m:tiled", "tiny-llama-q8_0:split"},
		{"tiny-llama-mixed", "tiny-phi3-q8_0"},
		{"tiny-gemma3-q4_k_m:tiled", "tiny-gemma2-q4_0"},
		{"tiny-bitnet-tq1_0:split", "tiny-bitnet-tq2_0:split"},
	}
	greedy := 10
	if longtest.Enabled {
		groups = append(groups, []string{"tiny-llama-q8_0", "tiny-gemma3-q8_0"}, []string{"tiny-bitnet-tq2_0"})
		greedy = 0
	}
	var models []string
	var rs []result
	for _, group := range groups {
		res, err := b.RunPage(ctx, srv.URL+"/compute/gpu/internal/browsercheck/page.html?models="+strings.Join(group, ",")+"&greedy="+strconv.Itoa(greedy), 10*time.Minute)
		if err != nil {
			t.Fatalf("%v\nconsole:\n%s\nscreenshot: %s", err, strings.Join(res.Console, "\n"), res.Screenshot)
		}
		var grs []result
		if err := json.Unmarshal(res.Value, &grs); err != nil {
			t.Fatalf("page result %s: %v", res.Value, err)
		}
		if len(grs) != len(group) {
			t.Fatalf("%d results for %d models: %s\nconsole:\n%s", len(grs), len(group), res.Value, strings.Join(res.Console, "\n"))
		}
		models = append(models, group...)
		rs = append(rs, grs...)
	}
	for i, r := range rs {
		if r.Model != models[i] || r.Error != "" {
			t.Errorf("%s: %s", models[i], r.Error)
			continue
		}
		for _, f := range r.Failures {
			t.Errorf("%s: %s", r.Model, f)
		}
		split := strings.HasSuffix(r.Model, ":split")
		if (r.Prompts < 3 && !split) || r.Prompts < 1 || r.Positions == 0 || r.Top1Checked == 0 || r.GreedySteps == 0 {
			t.Errorf("%s: nothing checked: %+v", r.Model, r)
		}
		if split && r.Split < 3 {
			t.Errorf("%s: token_embd in %d parts, want >= 3", r.Model, r.Split)
		}
		t.Logf("%s on %q: tol %.4f, max dev %.5f, top-1 %d/%d, %d prompts, %d positions, %d greedy steps, token_embd in %d parts; load %.0f ms, eval %.0f ms",
			r.Model, r.Adapter, r.Tol, r.MaxDev, r.Top1Equal, r.Top1Checked, r.Prompts, r.Positions, r.GreedySteps, r.Split, r.LoadMs, r.EvalMs)
	}
}
