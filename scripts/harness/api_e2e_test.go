package harness

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webgguf/webgguf/gen"
	"github.com/webgguf/webgguf/internal/longtest"
)

// runReportPage runs a page built on common.js's runTests and makes each of
// its in-page tests a subtest; min is the fewest tests the page must run.
func runReportPage(t *testing.T, path string, min int, timeout time.Duration) {
	t.Helper()
	e := setup(t)
	res, err := e.browser.RunPage(context.Background(), e.srv.URL+path, timeout)
	if err != nil {
		t.Fatalf("%v\nconsole:\n%s\nscreenshot: %s", err, strings.Join(res.Console, "\n"), res.Screenshot)
	}
	var rep report
	if err := json.Unmarshal(res.Value, &rep); err != nil {
		t.Fatalf("page result %s: %v", res.Value, err)
	}
	if len(rep.Tests) < min {
		t.Fatalf("page ran %d tests, want at least %d", len(rep.Tests), min)
	}
	failed := false
	for _, tc := range rep.Tests {
		t.Run(tc.Name, func(t *testing.T) {
			if !tc.OK {
				failed = true
				t.Fatal(tc.Error)
			}
			t.Logf("%.1f ms", tc.MS)
		})
	}
	if failed {
		t.Logf("console:\n%s", strings.Join(res.Console, "\n"))
	}
	// The engine's load phase timings (a debug log the pages print) and
	// the measured embedding deviations.
	for _, l := range res.Console {
		if strings.Contains(l, "load phases") || strings.Contains(l, "embeddings on") {
			t.Log(l)
		}
	}
}

// TestPublicAPI runs pages/api.js: the npm package's public API against
// fixture models in headless Chromium (greedy tokens compared with
// llama.cpp's, streaming, abort, queueing, typed errors, the model cache,
// structured output, embeddings, tool calls, context shift, session save
// and restore).
func TestPublicAPI(t *testing.T) {
	// The embedding test's WebGPU half (a SwiftShader load and run of
	// tiny-bert-f16, ~40 s) runs with the long tag only.
	path := "/scripts/harness/pages/api.html"
	if longtest.Enabled {
		path += "?long=1"
	}
	genToolModels(t)
	runReportPage(t, path, 18, 5*time.Minute)
}

// genToolModels writes the tool-call page's models into /gen/: tiny random
// weights on Llama's 32k vocabulary (the templates' markers are then plain
// text, which the grammar and parsers handle the same) carrying the real
// chat templates of chat/testdata.
func genToolModels(t *testing.T) {
	e := setup(t)
	root, err := RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	for fam, tpl := range map[string]string{"qwen3": "qwen3-gguf.jinja", "llama3.2": "llama3.2-3b.jinja", "mistral-nemo": "mistral-nemo-2407.jinja"} {
		src, err := os.ReadFile(filepath.Join(root, "chat", "testdata", "templates", tpl))
		if err != nil {
			t.Fatal(err)
		}
		cfg := gen.Config{Arch: "llama", Name: "tools-" + fam, NEmbd: 32, NLayer: 1, NHead: 2, NHeadKV: 1, NFF: 64, Ctx: 1024,
			RopeTheta: 10000, NormEps: 1e-5, Type: "q8_0", Seed: 11, Tied: true,
			Vocab: filepath.Join(root, "testdata", "models", "vocab-llama-spm.gguf"), ChatTemplate: string(src)}
		if err := gen.GenerateFile(filepath.Join(e.genDir, "tools-"+fam+".gguf"), cfg); err != nil {
			t.Fatal(err)
		}
	}
}
