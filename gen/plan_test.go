package gen

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/webgguf/webgguf/gguf"
)

// fixtureConfig reads the shape of a fixture model made by llama.cpp's
// tooling, so our plan for the same shape and file type can be compared
// with what llama.cpp wrote.
func fixtureConfig(t *testing.T, f *gguf.File, typ string) Config {
	t.Helper()
	get := func(k string) int {
		v, ok := f.Uint("{arch}." + k)
		if !ok {
			t.Fatalf("fixture lacks %s", k)
		}
		return int(v)
	}
	c := Config{Arch: f.Arch(), NEmbd: get("embedding_length"), NLayer: get("block_count"), NHead: get("attention.head_count"),
		NHeadKV: get("attention.head_count_kv"), NFF: get("feed_forward_length"), Ctx: get("context_length"),
		RopeTheta: 10000, NormEps: 1e-5, Type: typ}
	if kl, ok := f.Uint("{arch}.attention.key_length"); ok {
		c.HeadDim = int(kl)
	}
	if w, ok := f.Uint("{arch}.attention.sliding_window"); ok {
		c.Window = int(w)
	}
	_, hasOutput := f.Tensor("output.weight")
	c.Tied = !hasOutput
	return c
}

// TestPlanMatchesLlamaCpp compares our tensor list (names, shapes and the
// storage type chosen for each) with the fixture models that llama.cpp's
// converter and llama-quantize wrote, including the Q4_K_M mix on an
// 8-layer model (gotiny), and the metadata hyper-parameter keys.
func TestPlanMatchesLlamaCpp(t *testing.T) {
	for _, fx := range []struct{ file, typ string }{
		{"tiny-llama-q4_k_m.gguf", "q4_k_m"},
		{"gotiny-q4_k_m.gguf", "q4_k_m"},
		{"tiny-llama-q4_0.gguf", "q4_0"},
		{"tiny-llama-q8_0.gguf", "q8_0"},
		{"tiny-llama-f16.gguf", "f16"},
		{"tiny-llama-untied-q8_0.gguf", "q8_0"},
		{"tiny-qwen2-q8_0.gguf", "q8_0"},
		{"tiny-qwen3-q8_0.gguf", "q8_0"},
		{"tiny-gemma3-q8_0.gguf", "q8_0"},
		{"tiny-gemma3-q4_k_m.gguf", "q4_k_m"},
	} {
		t.Run(fx.file, func(t *testing.T) {
			f, err := gguf.OpenPath(filepath.Join("..", "testdata", "models", fx.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			c := fixtureConfig(t, f, fx.typ)
			if err := c.validate(); err != nil {
				t.Fatal(err)
			}
			toks, _ := f.Strings("tokenizer.ggml.tokens")
			specs, err := plan(&c, len(toks))
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{}
			for _, ti := range f.Tensors {
				want[ti.Name] = fmt.Sprintf("%v %s", ti.Ne, ti.Type)
			}
			got := map[string]string{}
			for _, s := range specs {
				got[s.Name] = fmt.Sprintf("%v %s", s.Ne, s.Type)
			}
			for name, w := range want {
				if got[name] != w {
					t.Errorf("%s: llama.cpp wrote %q, we plan %q", name, w, got[name])
				}
			}
			for name, g := range got {
				if _, ok := want[name]; !ok {
					t.Errorf("%s (%s): not in the llama.cpp file", name, g)
				}
			}
			// Hyper-parameter keys written by llama.cpp's tooling must be
			// written by us with the same value.
			ours := map[string]string{}
			for _, kv := range metadata(&c, len(toks), nil) {
				ours[kv.Key] = kv.Value.String()
			}
			for _, kv := range f.KV {
				k := kv.Key
				if (strings.HasPrefix(k, "general.") && !slices.Contains([]string{"general.architecture", "general.file_type", "general.quantization_version"}, k)) || filepath.Ext(k) == "" {
					continue
				}
				if k == c.Arch+".rope.freq_base" || k == c.Arch+".attention.layer_norm_rms_epsilon" || k == c.Arch+".context_length" ||
					strings.HasPrefix(k, "tokenizer.") {
					continue // free parameters of the shape, or copied from the vocab file
				}
				if ours[k] != kv.Value.String() {
					t.Errorf("key %s: llama.cpp %s, ours %q", k, kv.Value.String(), ours[k])
				}
			}
		})
	}
}
