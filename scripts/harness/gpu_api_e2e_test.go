package harness

import (
	"testing"
	"time"
)

// TestPublicAPIWebGPU runs pages/gpu-api.js: the public API loads
// tiny-llama-q8_0 under the strict CSP with 'webgpu' (info() reports webgpu)
// and with 'auto' (WebGPU on a hardware adapter, the CPU on SwiftShader's
// software one), and greedy ids equal llama.cpp's, also with the greedy
// tokens read back in batches of 3 (the bench page's batch knob).
func TestPublicAPIWebGPU(t *testing.T) {
	runReportPage(t, "/scripts/harness/pages/gpu-api.html", 3, 10*time.Minute) // 300 s a test (gpu-api.js)
}
