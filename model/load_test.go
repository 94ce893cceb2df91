package model_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
	"github.com/webgguf/webgguf/model/modeltest"
)

func base(arch string) modeltest.Spec {
	return modeltest.Spec{Arch: arch, NEmbd: 64, NLayer: 2, NFF: 96, NVocab: 50, NHead: 4, NHeadKV: 2, HeadDim: 16, Type: gguf.TypeF32, Seed: 7}
}

func load(t *testing.T, s modeltest.Spec) (model.Model, error) {
	t.Helper()
	f, err := modeltest.Open(s)
	if err != nil {
		t.Fatal(err)
	}
	return model.Load(f)
}

// loadFixture opens the fixture model name of testdata/models and binds
// its weights with model.Load; the file is closed when t ends.
func loadFixture(t *testing.T, name string) model.Model {
	t.Helper()
	f, err := gguf.OpenPath(filepath.Join("..", "testdata", "models", name+".gguf"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	m, err := model.Load(f)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestLoadBindsEveryArchitecture(t *testing.T) {
	for _, arch := range []string{"llama", "qwen2", "qwen3"} {
		for _, untied := range []bool{false, true} {
			s := base(arch)
			s.Untied = untied
			m, err := load(t, s)
			if err != nil {
				t.Fatalf("%s untied=%v: %v", arch, untied, err)
			}
			// token_embd, output_norm, (output), per layer 9 (+3 biases or +2 norms)
			want := 2 + 9*2
			switch arch {
			case "qwen2":
				want += 3 * 2
			case "qwen3":
				want += 2 * 2
			}
			if untied {
				want++
			}
			if got := len(m.Weights()); got != want {
				t.Errorf("%s untied=%v: %d weights, want %d", arch, untied, got, want)
			}
			c := m.Config()
			if c.NVocab != 50 || c.HeadDim != 16 || c.NHeadKV != 2 || c.NRot != 16 {
				t.Errorf("%s: config %+v", arch, c)
			}
		}
	}
}

func TestLoadErrorsNameTheProblem(t *testing.T) {
	withDrop := func(arch string, drop ...string) modeltest.Spec {
		s := base(arch)
		s.Drop = drop
		return s
	}
	withSet := func(arch, key string, v any) modeltest.Spec {
		s := base(arch)
		s.Set = []gguf.KV{{Key: key, Value: gguf.ValueOf(v)}}
		return s
	}
	var unknown *model.UnknownArchError
	var missing *model.MissingTensorError
	var shape *model.ShapeError
	var key *model.KeyError
	cases := []struct {
		name   string
		spec   modeltest.Spec
		target any
		check  func() bool
	}{
		{"unknown arch", base("gpt2"), &unknown, func() bool { return unknown.Arch == "gpt2" }},
		{"missing layer tensor", withDrop("llama", "blk.1.ffn_up.weight"), &missing, func() bool { return missing.Name == "blk.1.ffn_up.weight" }},
		{"missing embedding", withDrop("llama", "token_embd.weight"), &missing, func() bool { return missing.Name == "token_embd.weight" }},
		{"qwen2 without bias", withDrop("qwen2", "blk.1.attn_k.bias"), &missing, func() bool { return missing.Name == "blk.1.attn_k.bias" }},
		{"qwen3 without k norm", withDrop("qwen3", "blk.0.attn_k_norm.weight"), &missing, func() bool { return missing.Name == "blk.0.attn_k_norm.weight" }},
		{"ffn width disagrees", withSet("llama", "llama.feed_forward_length", uint32(97)), &shape, func() bool { return shape.Name == "blk.0.ffn_gate.weight" }},
		{"head count disagrees", withSet("llama", "llama.attention.head_count", uint32(2)), &shape, func() bool { return shape.Name == "blk.0.attn_q.weight" }},
		{"missing block count", withDrop("llama", "llama.block_count"), &key, func() bool { return key.Key == "llama.block_count" }},
		{"block count a string", withSet("llama", "llama.block_count", "two"), &key, func() bool { return key.Key == "llama.block_count" }},
		{"huge block count", withSet("llama", "llama.block_count", uint64(1)<<40), &key, func() bool { return key.Key == "llama.block_count" }},
		{"kv heads do not divide", withSet("llama", "llama.attention.head_count_kv", uint32(3)), &key, func() bool { return key.Key == "llama.attention.head_count_kv" }},
		{"negative epsilon", withSet("llama", "llama.attention.layer_norm_rms_epsilon", float32(-1)), &key, func() bool {
			return key.Key == "llama.attention.layer_norm_rms_epsilon"
		}},
		{"unsupported rope scaling", withSet("llama", "llama.rope.scaling.type", "yarn"), &key, func() bool { return key.Key == "llama.rope.scaling.type" }},
	}
	for _, c := range cases {
		_, err := load(t, c.spec)
		if err == nil {
			t.Errorf("%s: loaded", c.name)
			continue
		}
		if !errors.As(err, c.target) || !c.check() {
			t.Errorf("%s: wrong error %T: %v", c.name, err, err)
		}
	}
}
