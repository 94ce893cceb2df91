package model_test

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
	"github.com/webgguf/webgguf/model/modeltest"
)

// The tiny-bitnet fixtures (testdata/FAMILIES.md), as llama.cpp reads
// them: NEOX RoPE base 5e5, eps 1e-5, 8 heads / 2 KV of 32, both sub-norms
// bound (attn_sub_norm n_embd wide, ffn_sub_norm n_ff wide), ternary
// projections in the file's format, and no separate output matrix.
func TestBitNetHyperparametersAsLlamaCpp(t *testing.T) {
	for name, typ := range map[string]gguf.GGMLType{"tiny-bitnet-tq2_0": gguf.TypeTQ2_0, "tiny-bitnet-tq1_0": gguf.TypeTQ1_0} {
		m := loadFixture(t, name)
		c := m.Config()
		if c.Arch != "bitnet" || c.NLayer != 4 || c.NEmbd != 256 || c.NFF != 768 || c.NHead != 8 || c.NHeadKV != 2 || c.HeadDim != 32 ||
			c.RopeMode != compute.RopeNeox || c.Eps != 1e-5 {
			t.Fatalf("%s: config %+v", name, c)
		}
		for il, l := range c.Layers {
			if !l.Rope || l.RopeBase != 5e5 || l.Window != 0 || math.Abs(float64(l.AttnScale)-1/math.Sqrt(32)) > 1e-7 {
				t.Errorf("%s layer %d: %+v", name, il, l)
			}
		}
		b := m.(*model.BitNet)
		for il, l := range b.Layers {
			if l.AttnSubNorm == nil || l.AttnSubNorm.Ne[0] != 256 || l.FFNSubNorm == nil || l.FFNSubNorm.Ne[0] != 768 {
				t.Errorf("%s layer %d: sub-norms %v %v", name, il, l.AttnSubNorm, l.FFNSubNorm)
			}
			for _, w := range []*compute.Tensor{l.Q, l.K, l.V, l.SelfAttention.Output, l.Gate, l.Up, l.Down} {
				if w.Type != typ {
					t.Errorf("%s: %s is %s, want %s", name, w.Name, w.Type, typ)
				}
			}
		}
	}
}

// A BitNet file with per-tensor .scale tensors (the layout whose weights
// are stored without their scale) is refused with a typed error naming
// the tensor, not loaded with wrong numbers.
func TestBitNetScaleTensorsRefused(t *testing.T) {
	raw, err := modeltest.Bytes(modeltest.Spec{Arch: "bitnet", NEmbd: 256, NLayer: 2, NFF: 512, NVocab: 40, NHead: 4, NHeadKV: 2,
		HeadDim: 64, Type: gguf.TypeTQ2_0, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := model.Load(f); err != nil {
		t.Fatalf("without scales: %v", err)
	}
	var ts []gguf.TensorData
	for _, ti := range f.Tensors {
		d, err := f.ReadTensor(&ti)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, gguf.TensorData{Name: ti.Name, Type: ti.Type, Ne: ti.Ne, Data: d})
	}
	ts = append(ts, gguf.TensorData{Name: "blk.1.ffn_down.scale", Type: gguf.TypeF32, Ne: []uint64{1}, Data: []byte{0, 0, 0x80, 0x3f}})
	var buf bytes.Buffer
	if err := gguf.Write(&buf, f.KV, ts, 0); err != nil {
		t.Fatal(err)
	}
	g, err := gguf.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	_, err = model.Load(g)
	var ue *model.UnsupportedError
	if !errors.As(err, &ue) || ue.Name != "blk.1.ffn_down.scale" {
		t.Fatalf("got %v, want an UnsupportedError naming blk.1.ffn_down.scale", err)
	}
}
