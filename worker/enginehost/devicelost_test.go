package enginehost

import (
	"context"
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/webgpu"
)

// TestDeviceLost (natively; lavapipe in CI; Chromium's case is
// scripts/harness's TestHostileInputsE2E): a GPU device lost while a model
// is loaded fails the generation in flight with device-lost and frees the
// model (later calls say no-model); a device lost in the middle of a load
// fails it with device-lost ('webgpu') or moves it to the CPU ('auto');
// and a later load opens a new device that generates llama.cpp's ids.
func TestDeviceLost(t *testing.T) {
	if os.Getenv("LP_NUM_THREADS") == "" {
		t.Setenv("LP_NUM_THREADS", "0") // see compute/gpu's TestMain
	}
	data, err := os.ReadFile("../../testdata/models/tiny-llama-q8_0.gguf")
	if err != nil {
		t.Fatal(err)
	}
	r := loadRef(t, "../../testdata/ref/tiny-llama-q8_0.ref.json")
	p := r.Prompts[0]
	ctx := context.Background()
	h := New()
	var devices []*webgpu.Device
	h.SetBackend("webgpu", func(ctx context.Context) (compute.Backend, error) {
		b, err := gpu.Open(ctx)
		if err == nil {
			devices = append(devices, b.Device())
		}
		return b, err
	})
	defer h.Unload(ctx)
	load := func(backend string, progress func(done, total int64)) error {
		info, err := h.Load(ctx, data, LoadOptions{NCtx: 64, Backend: backend, Progress: progress})
		if err == nil && info.Backend != "webgpu" && backend == "webgpu" {
			t.Fatalf("loaded on %s", info.Backend)
		}
		return err
	}
	generates := func(what string) {
		t.Helper()
		req := greedy(len(p.Greedy))
		req.Prompt = p.Prompt
		if resp, _, _ := run(t, h, req); !slices.Equal(resp.Ids, p.Greedy) {
			t.Fatalf("%s: greedy ids %v, llama.cpp %v", what, resp.Ids, p.Greedy)
		}
	}

	// Lost in the middle of the load, once the first weight is in.
	destroyAtFirst := func(int64, int64) {
		if d := devices[len(devices)-1]; d.Lost() == nil {
			d.Destroy()
		}
	}
	if err := load("webgpu", destroyAtFirst); kind(err) != KindDeviceLost || !errors.Is(err, webgpu.ErrDeviceLost) {
		t.Fatalf("device lost mid-load: %v (%s), want %s", err, kind(err), KindDeviceLost)
	}
	if info, _ := h.Info(ctx); info.Loaded {
		t.Fatal("a model is loaded after the failed load")
	}
	var warned string
	info, err := h.Load(ctx, data, LoadOptions{NCtx: 64, Backend: "auto", Progress: destroyAtFirst, Warn: func(m string) { warned = m }})
	if err != nil || info.Backend != "cpu" || warned == "" {
		t.Fatalf("auto, device lost mid-load: %v, backend %v, warning %q; want the CPU", err, info, warned)
	}

	// Lost while generating: the call fails, the model is freed.
	if err := load("webgpu", nil); err != nil {
		t.Fatal(err)
	}
	generates("after the mid-load losses")
	req := greedy(32)
	req.Prompt = p.Prompt
	n := 0
	_, err = h.Generate(ctx, req, func(int32, string) error {
		if n++; n == 2 {
			devices[len(devices)-1].Destroy()
		}
		return nil
	})
	if kind(err) != KindDeviceLost || n >= 32 {
		t.Fatalf("device lost mid-generation: %v (%s) after %d tokens, want %s", err, kind(err), n, KindDeviceLost)
	}
	if _, err := h.Generate(ctx, req, func(int32, string) error { return nil }); kind(err) != KindNoModel {
		t.Fatalf("generation after the loss: %v (%s), want %s", err, kind(err), KindNoModel)
	}
	if err := load("webgpu", nil); err != nil {
		t.Fatalf("load after the loss: %v", err)
	}
	generates("on a new device")
	if len(devices) != 4 {
		t.Errorf("%d devices opened, want 4", len(devices))
	}
}
