package model_test

import (
	"errors"
	"math"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
	"github.com/webgguf/webgguf/model/modeltest"
)

// The tiny-gemma2 fixture (testdata/FAMILIES.md), as llama.cpp reads it:
// window 10 on the even layers (period 2), attention soft-cap 4 on every
// layer, final soft-cap 20, query scale 1/sqrt(key_length 32) although
// n_embd/n_head is 40, NEOX RoPE with base 10 000 everywhere.
func TestGemma2HyperparametersAsLlamaCpp(t *testing.T) {
	m := loadFixture(t, "tiny-gemma2-q4_0")
	c := m.Config()
	if c.NLayer != 4 || c.HeadDim != 32 || c.NHeadKV != 2 || c.RopeMode != compute.RopeNeox || c.FinalSoftcap != 20 {
		t.Fatalf("config %+v", c)
	}
	for il, l := range c.Layers {
		wantWindow := 0
		if il%2 == 0 {
			wantWindow = 10
		}
		if l.Window != wantWindow || l.RopeBase != 10000 || !l.Rope || l.AttnSoftcap != 4 || math.Abs(float64(l.AttnScale)-1/math.Sqrt(32)) > 1e-7 {
			t.Errorf("layer %d: %+v, want window %d, base 1e4, soft-cap 4, scale 1/sqrt(32)", il, l, wantWindow)
		}
	}
	// 2 + per layer attn_norm q k v output post_attn ffn_norm gate up
	// down post_ffw: tied output, no q/k norms.
	if got, want := len(m.Weights()), 2+11*4; got != want {
		t.Errorf("%d weights, want %d", got, want)
	}
}

// gemma2Spec is a generated gemma2 model with no soft-cap or window keys.
func gemma2Spec(nLayer int, set ...gguf.KV) modeltest.Spec {
	return modeltest.Spec{Arch: "gemma2", NEmbd: 64, NLayer: nLayer, NFF: 96, NVocab: 50, NHead: 4, NHeadKV: 2, HeadDim: 32,
		Type: gguf.TypeF32, Seed: 3, Set: set}
}

// What llama.cpp assumes when a gemma2 file omits a key: window 4096,
// soft-caps 50 and 30, RoPE base rope.freq_base on the window layers
// unless rope.freq_base_swa is set; and the 27B's query scale, taken from
// n_embd/n_head because its query_pre_attn_scalar is not head_dim.
func TestGemma2Defaults(t *testing.T) {
	read := func(s modeltest.Spec) model.Config {
		t.Helper()
		f, err := modeltest.Open(s)
		if err != nil {
			t.Fatal(err)
		}
		c, err := model.ReadConfig(f)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := read(gemma2Spec(3))
	if c.FinalSoftcap != 30 {
		t.Errorf("final soft-cap %g, want 30", c.FinalSoftcap)
	}
	for il, l := range c.Layers {
		want := []int{4096, 0, 4096}[il]
		if l.Window != want || l.AttnSoftcap != 50 || l.RopeBase != 10000 {
			t.Errorf("layer %d: %+v, want window %d, soft-cap 50, base 1e4", il, l, want)
		}
	}
	c = read(gemma2Spec(3, gguf.KV{Key: "gemma2.rope.freq_base_swa", Value: gguf.ValueOf(float32(5000))},
		gguf.KV{Key: "gemma2.attention.sliding_window_pattern", Value: gguf.ValueOf(uint32(3))}))
	for il, l := range c.Layers {
		swa := il < 2
		if (l.Window == 4096) != swa || (l.RopeBase == 5000) != swa {
			t.Errorf("pattern 3, layer %d: %+v", il, l)
		}
	}
	s := gemma2Spec(46)
	s.NEmbd, s.HeadDim = 64, 8 // n_embd/n_head 16, head_dim 8
	c = read(s)
	if got := c.Layers[0].AttnScale; got != 0.25 {
		t.Errorf("46 layers (27B): query scale %g, want 1/sqrt(64/4)", got)
	}
	var ke *model.KeyError
	f, err := modeltest.Open(gemma2Spec(2, gguf.KV{Key: "gemma2.final_logit_softcapping", Value: gguf.ValueOf(float32(0))}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := model.ReadConfig(f); !errors.As(err, &ke) || ke.Key != "gemma2.final_logit_softcapping" {
		t.Errorf("a zero soft-cap (llama.cpp divides by it): %v", err)
	}
}
