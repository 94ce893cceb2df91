package model_test

import (
	"bytes"
	"errors"
	"math"
	"path/filepath"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
)

// The tiny-gemma3 fixture (testdata/FAMILIES.md) is a file llama.cpp's
// converter wrote: window 5 on layers 0-4, full attention on layer 5, RoPE
// base 10 000 on the local layers and 1e6 on the global one, query scale
// 1/sqrt(key_length 32) although n_embd/n_head is 64.
func TestGemma3HyperparametersAsLlamaCpp(t *testing.T) {
	m := loadFixture(t, "tiny-gemma3-q8_0")
	c := m.Config()
	if c.NLayer != 6 || c.HeadDim != 32 || c.NHeadKV != 1 || c.RopeMode != compute.RopeNeox {
		t.Fatalf("config %+v", c)
	}
	for il, l := range c.Layers {
		wantWindow, wantBase := 5, float32(10000)
		if il == 5 {
			wantWindow, wantBase = 0, 1e6
		}
		if l.Window != wantWindow || l.RopeBase != wantBase || !l.Rope || math.Abs(float64(l.AttnScale)-1/math.Sqrt(32)) > 1e-7 {
			t.Errorf("layer %d: %+v, want window %d base %g scale 1/sqrt(32)", il, l, wantWindow, wantBase)
		}
	}
	// 2 + per layer attn_norm q k v q_norm k_norm output post_attn
	// ffn_norm gate up down post_ffw: tied output.
	if got, want := len(m.Weights()), 2+13*6; got != want {
		t.Errorf("%d weights, want %d", got, want)
	}
	// The KV cache keeps rings for the window layers.
	kv := model.NewKVCache(c, 512, 64)
	for il, k := range kv.K {
		if want := il < 5; k.Ring != want || (want && k.Ne[1] != 5+64-1) || (!want && k.Ne[1] != 512) {
			t.Errorf("layer %d cache %v ring %v", il, k.Ne, k.Ring)
		}
	}
	if !kv.Keeps(c, 100, 100) || !kv.Keeps(c, 100, 164) || kv.Keeps(c, 100, 165) {
		t.Error("Keeps: a ring of 68 after truncating to 100 holds position 96 until position 164 is written")
	}
	if !kv.Keeps(c, 0, 1000) || !kv.Keeps(c, 2, 68) || kv.Keeps(c, 2, 69) {
		t.Error("Keeps: truncating to 2 needs position 0, overwritten by position 68")
	}
}

func TestGemma3WindowPatternKey(t *testing.T) {
	cases := []struct {
		v    any
		want []bool // window per layer
	}{
		{uint32(2), []bool{true, false, true, false, true, false}},
		{[]bool{false, true, true, false, false, true}, []bool{false, true, true, false, false, true}},
		{uint32(0), []bool{true, true, true, true, true, true}},
	}
	for _, cs := range cases {
		f := fixtureWith(t, gguf.KV{Key: "gemma3.attention.sliding_window_pattern", Value: gguf.ValueOf(cs.v)})
		c, err := model.ReadConfig(f)
		if err != nil {
			t.Fatal(err)
		}
		for il, l := range c.Layers {
			if (l.Window > 0) != cs.want[il] {
				t.Errorf("pattern %v layer %d: window %d", cs.v, il, l.Window)
			}
		}
	}
	_, err := model.ReadConfig(fixtureWith(t, gguf.KV{Key: "gemma3.attention.sliding_window_pattern", Value: gguf.ValueOf("six")}))
	var ke *model.KeyError
	if !errors.As(err, &ke) || ke.Key != "gemma3.attention.sliding_window_pattern" {
		t.Errorf("a string pattern: %v", err)
	}
}

// fixtureWith rewrites the tiny-gemma3 fixture with kv added or replaced.
func fixtureWith(t *testing.T, kv gguf.KV) *gguf.File {
	t.Helper()
	f, err := gguf.OpenPath(filepath.Join("..", "testdata", "models", "tiny-gemma3-q8_0.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return rewrite(t, f, kv)
}

// rewrite returns f with kv added (or replacing the key of that name).
func rewrite(t *testing.T, f *gguf.File, kv gguf.KV) *gguf.File {
	t.Helper()
	var kvs []gguf.KV
	for _, e := range f.KV {
		if e.Key != kv.Key && e.Key != "general.alignment" {
			kvs = append(kvs, e)
		}
	}
	kvs = append(kvs, kv)
	var ts []gguf.TensorData
	for i := range f.Tensors {
		ti := &f.Tensors[i]
		data, err := f.ReadTensor(ti)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, gguf.TensorData{Name: ti.Name, Type: ti.Type, Ne: ti.Ne, Data: data})
	}
	var buf bytes.Buffer
	if err := gguf.Write(&buf, kvs, ts, gguf.DefaultAlignment); err != nil {
		t.Fatal(err)
	}
	out, err := gguf.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return out
}
