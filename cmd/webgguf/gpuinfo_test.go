package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/webgguf/webgguf/webgpu"
)

// TestGPUInfo checks that gpuinfo reports the device webgpu.Open gives, in
// both output forms. Like the webgpu tests it needs a Vulkan adapter
// (lavapipe in CI) and fails without one.
func TestGPUInfo(t *testing.T) {
	d, err := webgpu.Open(context.Background(), webgpu.Options{PowerPreference: webgpu.PowerHigh})
	if err != nil {
		t.Fatalf("webgpu.Open: %v", err)
	}
	want := d.Info()
	d.Close()

	var out bytes.Buffer
	if err := gpuInfo([]string{"-json"}, &out); err != nil {
		t.Fatal(err)
	}
	var got webgpu.Info
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("-json output: %v\n%s", err, out.String())
	}
	if got.Adapter != want.Adapter || got.Limits != want.Limits || len(got.Features) != len(want.Features) {
		t.Fatalf("gpuinfo -json = %+v, want %+v", got, want)
	}
	out.Reset()
	if err := gpuInfo(nil, &out); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{want.Adapter, "maxStorageBufferBindingSize", "minStorageBufferOffsetAlignment"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("text output lacks %q:\n%s", s, out.String())
		}
	}
	if err := gpuInfo([]string{"-power", "bogus"}, &out); err == nil {
		t.Error("bad -power accepted")
	}
}
