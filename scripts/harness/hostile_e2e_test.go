package harness

import (
	"testing"
	"time"
)

// TestHostileInputsE2E runs pages/hostile.js (issue 28) in headless
// Chromium: hostile GGUF files (a chat template nested 100 000 deep,
// truncated files, absurd tensor and key counts) end in typed results
// through the engine's worker, which then loads tiny-llama-q8_0 and
// generates llama.cpp's greedy ids; and a GPU device destroyed in the
// middle of a load and of a streamed generation (device-loss-worker.js)
// ends that call with 'device-lost', after which load() opens a new device
// and generates llama.cpp's ids again.
func TestHostileInputsE2E(t *testing.T) {
	runReportPage(t, "/scripts/harness/pages/hostile.html", 2, 12*time.Minute)
}
