package gen

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
)

// The nomic-embed-text-v1.5 preset writes what llama.cpp's nomic-bert
// loader reads (src/llama-model.cpp, llama-arch.cpp): token_types and the
// embedding LayerNorm, no learned positions, per layer a fused attn_qkv
// (n_embd + 2·n_embd_gqa rows), attn_output, ffn_gate/up/down and both
// LayerNorms, no projection biases; the keys LayerNorm epsilon, causal
// false and mean pooling. Read back at a small shape it loads as
// nomic-bert: NEOX RoPE at base 1000, non-causal, q, k and v bound as
// views of attn_qkv. Rank pooling is refused, by gen and by the loader.
func TestNomicBertPreset(t *testing.T) {
	c, ok := Preset("nomic-embed-text-v1.5")
	if !ok || c.Arch != "nomic-bert" || c.NEmbd != 768 || c.NLayer != 12 || c.NHead != 12 || c.NFF != 3072 || c.Pooling != 1 {
		t.Fatalf("preset %+v", c)
	}
	c.NEmbd, c.NLayer, c.NHead, c.NHeadKV, c.NFF, c.Ctx = 64, 2, 4, 4, 96, 64
	c.Type, c.Vocab = "f16", filepath.Join("..", c.Vocab)
	var buf bytes.Buffer
	if err := Generate(&buf, c); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]uint64{"token_embd.weight": {64, 30528}, "token_types.weight": {64, 2}, "token_embd_norm.weight": {64},
		"token_embd_norm.bias": {64}}
	for _, l := range []string{"blk.0.", "blk.1."} {
		for n, ne := range map[string][]uint64{"attn_qkv.weight": {64, 192}, "attn_output.weight": {64, 64}, "attn_output_norm.weight": {64},
			"attn_output_norm.bias": {64}, "ffn_gate.weight": {64, 96}, "ffn_up.weight": {64, 96}, "ffn_down.weight": {96, 64},
			"layer_output_norm.weight": {64}, "layer_output_norm.bias": {64}} {
			want[l+n] = ne
		}
	}
	if len(f.Tensors) != len(want) {
		t.Errorf("%d tensors, want %d", len(f.Tensors), len(want))
	}
	for _, ti := range f.Tensors {
		if ne, ok := want[ti.Name]; !ok || !slices.Equal(ti.Ne, ne) {
			t.Errorf("tensor %s %v, want %v (listed: %v)", ti.Name, ti.Ne, ne, ok)
		}
	}
	if eps, _ := f.Float("nomic-bert.attention.layer_norm_epsilon"); float32(eps) != 1e-12 {
		t.Errorf("layer_norm_epsilon %g", eps)
	}
	if causal, ok := f.Bool("nomic-bert.attention.causal"); !ok || causal {
		t.Errorf("attention.causal %v (present %v), want false", causal, ok)
	}
	if p, _ := f.Uint("nomic-bert.pooling_type"); p != 1 {
		t.Errorf("pooling_type %d, want 1 (mean)", p)
	}
	m, err := model.Load(f)
	if err != nil {
		t.Fatal(err)
	}
	mc := m.Config()
	if !mc.Embeddings || !mc.NonCausal || mc.Pooling != model.PoolingMean || mc.RopeMode != compute.RopeNeox || mc.NRot != 16 || mc.Eps != 1e-12 {
		t.Errorf("config %+v", mc)
	}
	for il, l := range mc.Layers {
		if !l.Rope || l.RopeBase != 1000 {
			t.Errorf("layer %d: %+v", il, l)
		}
	}
	nb := m.(*model.NomicBert)
	for il, l := range nb.Layers {
		for i, w := range []*compute.Tensor{l.Q, l.K, l.V} {
			if w.View == nil || w.View.Source != fmt.Sprintf("blk.%d.attn_qkv.weight", il) || w.View.Row != 64*i {
				t.Errorf("layer %d part %d: %+v, want a view of attn_qkv from row %d", il, i, w.View, 64*i)
			}
		}
	}

	var ce *ConfigError
	if c.Pooling = 4; !errors.As(Generate(&bytes.Buffer{}, c), &ce) {
		t.Error("rank pooling of nomic-bert: no ConfigError")
	}
	// A file that says rank pooling anyway is refused by name.
	var kv []gguf.KV
	for _, p := range f.KV {
		if p.Key == "nomic-bert.pooling_type" {
			p.Value = gguf.ValueOf(uint32(4))
		}
		kv = append(kv, p)
	}
	var ts []gguf.TensorData
	for i := range f.Tensors {
		ti := &f.Tensors[i]
		data, err := f.ReadTensor(ti)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, gguf.TensorData{Name: ti.Name, Type: ti.Type, Ne: ti.Ne, Data: data})
	}
	rewrite := func(kv []gguf.KV, ts []gguf.TensorData) *gguf.File {
		var rb bytes.Buffer
		if err := gguf.Write(&rb, kv, ts, 0); err != nil {
			t.Fatal(err)
		}
		rf, err := gguf.Open(bytes.NewReader(rb.Bytes()), int64(rb.Len()))
		if err != nil {
			t.Fatal(err)
		}
		return rf
	}
	var ke *model.KeyError
	if _, err := model.Load(rewrite(kv, ts)); !errors.As(err, &ke) || ke.Key != "nomic-bert.pooling_type" {
		t.Errorf("rank-pooled nomic-bert file: %v, want a KeyError for nomic-bert.pooling_type", err)
	}
	// An output bias, which llama.cpp would add, is refused by name rather
	// than left out of the sum.
	bias := make([]float32, 64)
	for i := range bias {
		bias[i] = 0.01 * float32(i+1)
	}
	data, _ := gguf.Quantize(gguf.TypeF32, bias)
	ts = append(ts, gguf.TensorData{Name: "blk.1.attn_output.bias", Type: gguf.TypeF32, Ne: []uint64{64}, Data: data})
	var ue *model.UnsupportedError
	if _, err := model.Load(rewrite(f.KV, ts)); !errors.As(err, &ue) || ue.Name != "blk.1.attn_output.bias" {
		t.Errorf("nomic-bert file with an output bias: %v, want an UnsupportedError naming it", err)
	}
}
