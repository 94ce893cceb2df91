package bench

import (
	"testing"
	"time"
)

// TestBenchPageSmoke runs the bench page for both engines on the gotiny
// fixture with a short prompt and 4 decoded tokens: both must load in
// Chromium without WebGPU, run on one CPU thread and report complete
// timings. webgguf is created with backend 'auto' through its public page
// API, so this also proves the automatic CPU fallback of the real engine
// (checkRun requires the loaded model's backend to be "cpu").
func TestBenchPageSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: skipped with -short")
	}
	e := setup(t, "")
	defer e.close()
	const gen = 4
	for _, engine := range []string{"webgguf", "wllama"} {
		r := e.page(t, engine, "/testdata/models/gotiny-q4_k_m.gguf&backend=auto", 1, gen, 3*time.Minute)
		checkRun(t, r, gen)
		t.Logf("%s: prefill %d tok %.1f tok/s, decode %.1f tok/s, load %.0f ms, text %q", engine,
			r.Timings.PromptN, r.Timings.PromptPerSecond, r.Timings.PredictedPerSecond, r.LoadMs, r.Text)
	}
}
