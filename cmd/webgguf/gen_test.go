package main

import (
	"path/filepath"
	"testing"

	"github.com/webgguf/webgguf/gguf"
)

// TestGenPresetOverride: a preset supplies the shape, explicitly given
// flags override it, and the file carries both.
func TestGenPresetOverride(t *testing.T) {
	out := filepath.Join(t.TempDir(), "m.gguf")
	err := runGen([]string{"--preset", "qwen2.5-0.5b", "--n-layer", "1", "--n-vocab", "4096", "--type", "q8_0", "--seed", "3",
		"--vocab", "../../testdata/models/tiny-qwen2-q8_0.gguf", "--out", out})
	if err != nil {
		t.Fatal(err)
	}
	f, err := gguf.OpenPath(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]uint64{
		"{arch}.embedding_length": 896, "{arch}.attention.head_count": 14, "{arch}.attention.head_count_kv": 2,
		"{arch}.feed_forward_length": 4864, "{arch}.context_length": 32768, // from the preset
		"{arch}.block_count": 1, "{arch}.vocab_size": 4096, "general.file_type": 7, // from the flags
	}
	for k, v := range want {
		if got, ok := f.Uint(k); !ok || got != v {
			t.Errorf("%s = %d, want %d", k, got, v)
		}
	}
	if theta, _ := f.Float("{arch}.rope.freq_base"); theta != 1e6 {
		t.Errorf("rope theta %g", theta)
	}
	if _, ok := f.Tensor("blk.0.attn_q.bias"); !ok || f.Arch() != "qwen2" {
		t.Error("not a qwen2 model with q/k/v biases")
	}
	if _, ok := f.Tensor("output.weight"); ok {
		t.Error("preset is tied, but output.weight was written")
	}
	if err := runGen([]string{"--out", out}); err == nil {
		t.Error("missing --vocab accepted")
	}
	if err := runGen([]string{"--preset", "nope", "--out", out}); err == nil {
		t.Error("unknown preset accepted")
	}
}
