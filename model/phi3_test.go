package model_test

import (
	"math"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
	"github.com/webgguf/webgguf/model/modeltest"
)

// The tiny-phi3 fixture (testdata/FAMILIES.md), as llama.cpp reads it:
// head_dim 48 of which rope.dimension_count 32 rotate (NEOX), no window,
// query scale 1/sqrt(48), RMSNorm eps 1e-5, original context = context
// length 4096, attention factor 1; attn_qkv and ffn_up bound as views.
func TestPhi3HyperparametersAsLlamaCpp(t *testing.T) {
	m := loadFixture(t, "tiny-phi3-q8_0")
	c := m.Config()
	if c.NLayer != 3 || c.HeadDim != 48 || c.NRot != 32 || c.NHeadKV != 1 || c.RopeMode != compute.RopeNeox ||
		c.Eps != 1e-5 || c.NCtxOrig != 4096 || c.RopeAttnFactor != 1 {
		t.Fatalf("config %+v", c)
	}
	for il, l := range c.Layers {
		if l.Window != 0 || !l.Rope || l.RopeBase != 10000 || math.Abs(float64(l.AttnScale)-1/math.Sqrt(48)) > 1e-7 {
			t.Errorf("layer %d: %+v", il, l)
		}
	}
	views := 0
	for _, w := range m.Weights() {
		if w.View != nil {
			views++
		}
	}
	// q, k, v and gate, up per layer.
	if views != 5*3 {
		t.Errorf("%d views, want 15", views)
	}
}

// llama.cpp's get_rope_factors: the short factors up to the original
// context, the long ones beyond it; attention.sliding_window, which
// llama.cpp reads and then switches off for phi3, leaves every layer
// full; rope.scaling.attn_factor is read.
func TestPhi3LongRopeAndWindow(t *testing.T) {
	s := modeltest.Spec{Arch: "phi3", NEmbd: 64, NLayer: 2, NFF: 96, NVocab: 50, NHead: 2, NHeadKV: 1, HeadDim: 32, NRot: 16,
		Type: gguf.TypeF32, RopeFreqs: true, ContextLength: 4096, Window: 7, Seed: 5,
		Set: []gguf.KV{{Key: "phi3.rope.scaling.original_context_length", Value: gguf.ValueOf(uint32(256))},
			{Key: "phi3.rope.scaling.attn_factor", Value: gguf.ValueOf(float32(1.25))}}}
	f, err := modeltest.Open(s)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.Load(f)
	if err != nil {
		t.Fatal(err)
	}
	p := m.(*model.Phi3)
	c := p.Config()
	if c.NCtxOrig != 256 || c.NCtxTrain != 4096 || c.RopeAttnFactor != 1.25 {
		t.Errorf("config %+v", c)
	}
	for il, l := range c.Layers {
		if l.Window != 0 {
			t.Errorf("layer %d: window %d, want none", il, l.Window)
		}
	}
	if p.RopeShort == nil || p.RopeLong == nil || p.RopeShort.Ne[0] != 8 {
		t.Fatalf("factors %v %v", p.RopeShort, p.RopeLong)
	}
	for _, tc := range []struct {
		nCtx int
		want *compute.Tensor
	}{{1, p.RopeShort}, {256, p.RopeShort}, {257, p.RopeLong}, {4096, p.RopeLong}} {
		if got := p.RopeFactors(tc.nCtx); got != tc.want {
			t.Errorf("n_ctx %d: factors %s, want %s", tc.nCtx, got.Name, tc.want.Name)
		}
	}
}
