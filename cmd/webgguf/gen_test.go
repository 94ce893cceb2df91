package main

import (
	"path/filepath"
	"strings"
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

// TestGenGemmaPreset: a gemma preset at a small shape writes gemma3's
// keys, the Gemma chat template and the turn markers.
func TestGenGemmaPreset(t *testing.T) {
	out := filepath.Join(t.TempDir(), "g.gguf")
	err := runGen([]string{"--preset", "gemma-3-270m", "--n-embd", "64", "--n-layer", "2", "--n-ff", "128", "--head-dim", "32",
		"--window", "16", "--n-vocab", "32016", "--type", "q8_0", "--vocab", "../../testdata/models/vocab-llama-spm.gguf", "--out", out})
	if err != nil {
		t.Fatal(err)
	}
	f, err := gguf.OpenPath(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]uint64{
		"{arch}.attention.head_count": 4, "{arch}.attention.head_count_kv": 1, "{arch}.context_length": 32768, // from the preset
		"{arch}.attention.key_length": 32, "{arch}.attention.sliding_window": 16, "{arch}.block_count": 2, // from the flags
	}
	for k, v := range want {
		if got, ok := f.Uint(k); !ok || got != v {
			t.Errorf("%s = %d, want %d", k, got, v)
		}
	}
	if eps, _ := f.Float("{arch}.attention.layer_norm_rms_epsilon"); f.Arch() != "gemma3" || float32(eps) != 1e-6 {
		t.Errorf("arch %s, eps %g", f.Arch(), eps)
	}
	if tmpl, _ := f.String("tokenizer.chat_template"); !strings.Contains(tmpl, "<start_of_turn>") {
		t.Error("no Gemma chat template")
	}
	if toks, _ := f.Strings("tokenizer.ggml.tokens"); len(toks) != 32016 || toks[32001] != "<end_of_turn>" {
		t.Errorf("vocab of %d tokens without <end_of_turn> at 32001", len(toks))
	}
}
