package enginehost

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/webgguf/webgguf/compute"
)

// TestAutoFallsBackToCPU: with "auto", a WebGPU backend that cannot be
// opened leaves the model on the CPU, with a warning; asking for "webgpu"
// outright fails with gpu-unavailable.
func TestAutoFallsBackToCPU(t *testing.T) {
	data, err := os.ReadFile("../../testdata/models/tiny-llama-q8_0.gguf")
	if err != nil {
		t.Fatal(err)
	}
	h := New()
	h.SetBackend("webgpu", func(context.Context) (compute.Backend, error) { return nil, errors.New("no adapter") })
	var warned string
	info, err := h.Load(context.Background(), data, LoadOptions{NCtx: 64, Warn: func(m string) { warned = m }})
	if err != nil || info.Backend != "cpu" || warned == "" {
		t.Fatalf("auto: %v %+v warning %q", err, info, warned)
	}
	if _, err := h.Load(context.Background(), data, LoadOptions{NCtx: 64, Backend: "webgpu"}); kind(err) != KindGPUUnavailable {
		t.Fatalf("webgpu: %v (%s)", err, kind(err))
	}
}
