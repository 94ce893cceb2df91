package harness

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

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
// structured output, embeddings, context shift, session save and restore).
func TestPublicAPI(t *testing.T) {
	// The embedding test's WebGPU half (a SwiftShader load and run of
	// tiny-bert-f16, ~40 s) runs with the long tag only.
	path := "/scripts/harness/pages/api.html"
	if longtest.Enabled {
		path += "?long=1"
	}
	runReportPage(t, path, 17, 5*time.Minute)
}
