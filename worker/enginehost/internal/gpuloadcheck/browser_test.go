//go:build !js

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webgguf/webgguf/engine/refcheck"
	"github.com/webgguf/webgguf/internal/longtest"
	"github.com/webgguf/webgguf/scripts/harness"
)

// result mirrors main_js.go's Result.
type result struct {
	Backend     string
	FileBytes   int64
	WasmBefore  int64
	WasmAfter   int64
	Greedy      [][]int32
	LoadMs      float64
	Error       string
	MetadataLen int

	CancelKind     string
	CancelAt       int64
	GPUBeforeLoad  int64
	GPUPeakCancel  int64
	GPUAfterCancel int64
	GPUAfterUnload int64
}

// load is one model the page loads: its name and how many of llama.cpp's
// greedy continuations to generate on SwiftShader.
type load struct {
	model   string
	prompts int
}

// TestLoadSourceOnWebGPU loads models through Host.LoadSource from the
// 127.0.0.1 test server onto WebGPU (SwiftShader) in a Web Worker of
// headless Chromium under the harness's strict CSP. gotiny-q4_k_m (16 MB):
// a first load cancelled after 4 MiB of weights returns "canceled" and
// leaves no GPU buffer alive (worker.js counts every buffer's bytes until it
// or its device is destroyed); the next load grows wasm memory by at most
// 32 MiB + the metadata and by less than the file (a load through Go memory
// holds all of it; this one streams the weights JS → GPU); unload frees
// every GPU byte.
// tiny-llama-q8_0: greedy ids equal llama.cpp's (the first 12 of each run;
// all of them with the long tag). (gotiny's own greedy runs
// on the GPU meet llama.cpp's only by refcheck's near-tie rule, which needs
// logits; compute/gpu's browser check judges those.)
func TestLoadSourceOnWebGPU(t *testing.T) {
	loads := []load{{"gotiny-q4_k_m", 0}, {"tiny-llama-q8_0", 2}}
	// The first 12 tokens of each greedy run (a prefix of a greedy run is
	// a greedy run; SwiftShader decodes about 2 a second), whole runs with
	// the long tag.
	greedy := 12
	if longtest.Enabled {
		greedy = 0 // all
	}
	ctx := context.Background()
	root, err := harness.RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	want := make([][][]int32, len(loads))
	var arg []string
	for i, l := range loads {
		ref, err := refcheck.Load(filepath.Join(root, "testdata", "ref", l.model+".ref.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ref.Prompts {
			if len(p.Greedy) > 0 && len(want[i]) < l.prompts {
				g := p.Greedy
				if greedy > 0 {
					g = g[:min(greedy, len(g))]
				}
				want[i] = append(want[i], g)
			}
		}
		if len(want[i]) != l.prompts {
			t.Fatalf("%s: %d llama.cpp greedy continuations, want %d", l.model, len(want[i]), l.prompts)
		}
		arg = append(arg, fmt.Sprintf("%s:%d", l.model, l.prompts))
	}
	assets, err := harness.BuildWasm(ctx, root, "./worker/enginehost/internal/gpuloadcheck", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv, err := harness.Serve(root, map[string]string{"/gpuload/": assets})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	b, err := harness.Launch(ctx, harness.Options{ArtifactDir: os.Getenv("HARNESS_ARTIFACTS"), GPU: os.Getenv("HARNESS_GPU") == "1"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	res, err := b.RunPage(ctx, srv.URL+"/worker/enginehost/internal/gpuloadcheck/page.html?models="+strings.Join(arg, ",")+"&greedy="+strconv.Itoa(greedy), 8*time.Minute)
	if err != nil {
		t.Fatalf("%v\nconsole:\n%s\nscreenshot: %s", err, strings.Join(res.Console, "\n"), res.Screenshot)
	}
	var rs []result
	if err := json.Unmarshal(res.Value, &rs); err != nil {
		t.Fatalf("page result %s: %v", res.Value, err)
	}
	if len(rs) != len(loads) {
		t.Fatalf("%d results for %d loads: %s", len(rs), len(loads), res.Value)
	}
	for i, r := range rs {
		name := loads[i].model
		if r.Error != "" {
			t.Errorf("%s: %s\nconsole:\n%s", name, r.Error, strings.Join(res.Console, "\n"))
			continue
		}
		growth := r.WasmAfter - r.WasmBefore
		t.Logf("%s: backend %s, file %d B, wasm memory %d -> %d (%+.1f MiB), metadata %d B, load %.0f ms",
			name, r.Backend, r.FileBytes, r.WasmBefore, r.WasmAfter, float64(growth)/(1<<20), r.MetadataLen, r.LoadMs)
		if r.Backend != "webgpu" {
			t.Errorf("%s: loaded on %q, want webgpu", name, r.Backend)
		}
		if i == 0 {
			// The load cancelled midway held GPU memory while it ran
			// and none once it returned.
			t.Logf("%s: cancelled at %d B of weights: %s; live GPU bytes %d before, peak %d, %d after the cancel, %d after the later load's unload",
				name, r.CancelAt, r.CancelKind, r.GPUBeforeLoad, r.GPUPeakCancel, r.GPUAfterCancel, r.GPUAfterUnload)
			if r.CancelKind != "canceled" || r.CancelAt <= 0 || r.CancelAt >= r.FileBytes {
				t.Errorf("%s: the load was not cancelled midway: %s at %d of %d bytes", name, r.CancelKind, r.CancelAt, r.FileBytes)
			}
			if r.GPUPeakCancel < r.CancelAt || r.GPUAfterCancel != r.GPUBeforeLoad {
				t.Errorf("%s: GPU bytes %d before the cancelled load, peak %d (want ≥ %d), %d after (want %d)",
					name, r.GPUBeforeLoad, r.GPUPeakCancel, r.CancelAt, r.GPUAfterCancel, r.GPUBeforeLoad)
			}
		}
		if r.GPUAfterUnload != 0 {
			t.Errorf("%s: %d GPU bytes live after unload", name, r.GPUAfterUnload)
		}
		if i == 0 {
			if limit := int64(32<<20 + r.MetadataLen); growth > limit || growth >= r.FileBytes {
				t.Errorf("%s: wasm memory grew %d bytes during the load, want at most %d and less than the %d-byte file", name, growth, limit, r.FileBytes)
			}
		}
		if len(r.Greedy) != len(want[i]) {
			t.Errorf("%s: %d greedy runs, want %d", name, len(r.Greedy), len(want[i]))
			continue
		}
		for j := range want[i] {
			if !slices.Equal(r.Greedy[j], want[i][j]) {
				t.Errorf("%s prompt %d: greedy %v, llama.cpp %v", name, j, r.Greedy[j], want[i][j])
			}
		}
	}
}
