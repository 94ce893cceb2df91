package harness

import (
	"testing"
	"time"
)

// TestPublicAPIWebGPU runs pages/gpu-api.js: the public API loads
// tiny-llama-q8_0 on the WebGPU backend (SwiftShader) under the strict CSP,
// with 'webgpu' and with 'auto', info() reports webgpu, and greedy ids equal
// llama.cpp's.
func TestPublicAPIWebGPU(t *testing.T) {
	runReportPage(t, "/scripts/harness/pages/gpu-api.html", 2, 5*time.Minute)
}
