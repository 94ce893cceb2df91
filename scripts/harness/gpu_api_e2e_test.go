package harness

import (
	"testing"
	"time"

	"github.com/webgguf/webgguf/internal/longtest"
)

// TestPublicAPIWebGPU runs pages/gpu-api.js: the public API loads
// tiny-llama-q8_0 under the strict CSP with 'webgpu' (info() reports webgpu)
// and with 'auto' (WebGPU on a hardware adapter, the CPU on SwiftShader's
// software one), and greedy ids equal llama.cpp's, also with the greedy
// tokens read back in batches of 3 (the bench page's batch knob): the
// first 12 of them, all 32 in the long suite.
func TestPublicAPIWebGPU(t *testing.T) {
	page := "/scripts/harness/pages/gpu-api.html"
	if longtest.Enabled {
		page += "?greedy=32"
	}
	runReportPage(t, page, 3, 10*time.Minute) // 300 s a test (gpu-api.js)
}
