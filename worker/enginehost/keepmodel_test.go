package enginehost

import (
	"bytes"
	"context"
	"os"
	"slices"
	"testing"

	"github.com/webgguf/webgguf/gguf"
)

const tinyQ8 = "../../testdata/models/tiny-llama-q8_0.gguf"

// withArch returns a copy of the GGUF file data whose general.architecture
// "llama" is replaced by arch (5 bytes, so that nothing else moves).
func withArch(t *testing.T, data []byte, arch string) []byte {
	t.Helper()
	key := []byte("general.architecture")
	val := append([]byte{8, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0}, "llama"...) // type string, length 5
	i := bytes.Index(data, append(key, val...))
	if i < 0 || len(arch) != 5 {
		t.Fatalf("no general.architecture \"llama\" to replace with %q", arch)
	}
	out := slices.Clone(data)
	copy(out[i+len(key)+12:], arch)
	return out
}

// TestFailedLoadKeepsModel: a load of a file this engine cannot run (not
// GGUF, an HTML error page, truncated, an unsupported architecture) fails
// with bad-file or unsupported-model and leaves the loaded model loaded:
// same info, and it still generates llama.cpp's greedy tokens.
func TestFailedLoadKeepsModel(t *testing.T) {
	data, err := os.ReadFile(tinyQ8)
	if err != nil {
		t.Fatal(err)
	}
	r := loadRef(t, "../../testdata/ref/tiny-llama-q8_0.ref.json")
	p := r.Prompts[0]
	want := p.Greedy[:4]
	h := New()
	ctx := context.Background()
	before, err := h.Load(ctx, data, LoadOptions{Name: "good", NCtx: 64})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = h.Unload(context.Background()) })
	html := []byte("<!doctype html><title>Not Found</title><h1>Not Found</h1>" + string(bytes.Repeat([]byte(" "), 4096)))
	for _, c := range []struct {
		name string
		data []byte
		kind string
	}{
		{"random bytes", bytes.Repeat([]byte{0x5a, 0x17, 0xc3}, 3000), KindBadFile},
		{"HTML page", html, KindBadFile},
		{"truncated", data[:len(data)/2], KindBadFile},
		{"header only", data[:64], KindBadFile},
		{"unsupported architecture", withArch(t, data, "mamba"), KindUnsupportedModel},
	} {
		_, err := h.Load(ctx, c.data, LoadOptions{Name: c.name, NCtx: 64})
		if kind(err) != c.kind {
			t.Errorf("%s: %v (%s), want %s", c.name, err, kind(err), c.kind)
		}
		info, _ := h.Info(ctx)
		if !info.Loaded || info.Name != "good" || info.FileBytes != before.FileBytes {
			t.Fatalf("%s: the failed load left %+v, want the model loaded before", c.name, info)
		}
		res, err := h.Generate(ctx, Request{Prompt: p.Prompt, MaxTokens: len(want), Sampling: greedy(0).Sampling, IgnoreEOS: true}, func(int32, string) error { return nil })
		if err != nil || !slices.Equal(res.Ids, want) {
			t.Fatalf("%s: generate after the failed load: %v %v, want %v (llama.cpp)", c.name, err, res, want)
		}
	}
	// The file itself parses as GGUF with the architecture replaced: what
	// failed is the architecture, not the format.
	if f, err := gguf.Open(bytes.NewReader(withArch(t, data, "mamba")), int64(len(data))); err != nil || f.Arch() != "mamba" {
		t.Fatalf("patched file: %v", err)
	}
}
