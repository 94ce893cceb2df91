package enginehost

import (
	"context"
	"errors"
	"os"
	"strings"
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

// softBackend is a GPU backend whose adapter is a software renderer; only
// SoftwareAdapter and Close are ever called on it here.
type softBackend struct {
	compute.Backend
	closed bool
}

func (b *softBackend) SoftwareAdapter() (bool, string) { return true, "SwiftShader Device (Subzero)" }
func (b *softBackend) Close() error                    { b.closed = true; return nil }

// TestAutoPassesOverSoftwareAdapter: "auto" closes a WebGPU backend on a
// software adapter and loads on the CPU, warning with the adapter's name;
// "webgpu" asked outright keeps it.
func TestAutoPassesOverSoftwareAdapter(t *testing.T) {
	data, err := os.ReadFile("../../testdata/models/tiny-llama-q8_0.gguf")
	if err != nil {
		t.Fatal(err)
	}
	h := New()
	var opened []*softBackend
	h.SetBackend("webgpu", func(context.Context) (compute.Backend, error) {
		b := &softBackend{}
		opened = append(opened, b)
		return b, nil
	})
	var warned string
	info, err := h.Load(context.Background(), data, LoadOptions{NCtx: 64, Backend: "auto", Warn: func(m string) { warned = m }})
	if err != nil || info.Backend != "cpu" {
		t.Fatalf("auto: %v %+v", err, info)
	}
	if len(opened) != 1 || !opened[0].closed {
		t.Fatalf("auto: the software-adapter backend was not closed (%d opened)", len(opened))
	}
	if !strings.Contains(warned, "software renderer") || !strings.Contains(warned, "SwiftShader") {
		t.Fatalf("auto: warning %q does not name the software adapter", warned)
	}
	be, name, err := h.pickBackend(context.Background(), "webgpu", func(m string) { t.Errorf("webgpu warned %q", m) })
	if err != nil || name != "webgpu" || be != compute.Backend(opened[1]) || opened[1].closed {
		t.Fatalf("webgpu: %v %q %v", err, name, be)
	}
}
