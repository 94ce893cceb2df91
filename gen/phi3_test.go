package gen

import (
	"bytes"
	"math"
	"path/filepath"
	"testing"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
)

// The phi3 presets carry what Phi-3.5-mini's and Phi-4-mini's converted
// files carry: fused attn_qkv and gate/up ffn_up, LongRoPE (original
// context 4096, attention factor sqrt(1 + ln 32 / ln 4096), 48 factors
// each), Phi-4-mini's partial rotary and tied output, and their chat
// templates. Read back at a small depth, they load as phi3.
func TestPhi3Presets(t *testing.T) {
	for _, tc := range []struct {
		preset      string
		nRot, nHead int
		tied        bool
	}{{"phi-3.5-mini", 96, 32, false}, {"phi-4-mini", 96, 24, true}} {
		c, _ := Preset(tc.preset)
		if c.NHead != tc.nHead || c.NEmbd != 3072 || c.NLayer != 32 || c.NFF != 8192 || c.Tied != tc.tied {
			t.Errorf("%s: preset %+v", tc.preset, c)
		}
		// Written two heads wide and one layer deep (the vocab stays):
		// the full width takes minutes on a small machine.
		hd := c.NEmbd / c.NHead
		kv := 2 // Phi-3.5: no GQA; Phi-4-mini: GQA
		if c.NHeadKV < c.NHead {
			kv = 1
		}
		c.NEmbd, c.NHead, c.NHeadKV, c.NFF, c.NLayer = 2*hd, 2, kv, 64, 1
		c.Type, c.Vocab = "q8_0", filepath.Join("..", c.Vocab)
		var buf bytes.Buffer
		if err := Generate(&buf, c); err != nil {
			t.Fatalf("%s: %v", tc.preset, err)
		}
		f, err := gguf.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatal(err)
		}
		m, err := model.Load(f)
		if err != nil {
			t.Fatalf("%s: %v", tc.preset, err)
		}
		mc := m.Config()
		want := float32(math.Sqrt(1 + math.Log(32)/math.Log(4096)))
		if mc.NRot != tc.nRot || mc.HeadDim != hd || mc.NCtxOrig != 4096 || mc.NCtxTrain != 131072 || mc.RopeAttnFactor != want {
			t.Errorf("%s: config %+v", tc.preset, mc)
		}
		for _, name := range []string{"blk.0.attn_qkv.weight", "blk.0.ffn_up.weight", "rope_factors_short.weight", "rope_factors_long.weight"} {
			if _, ok := f.Tensor(name); !ok {
				t.Errorf("%s: no %s", tc.preset, name)
			}
		}
		if ti, ok := f.Tensor("rope_factors_long.weight"); ok && (ti.Ne[0] != 48 || ti.Type != gguf.TypeF32) {
			t.Errorf("%s: rope_factors_long %v %v", tc.preset, ti.Ne, ti.Type)
		}
		if _, ok := f.Tensor("output.weight"); ok == tc.tied {
			t.Errorf("%s: output.weight present %v, tied %v", tc.preset, ok, tc.tied)
		}
		if tmpl, _ := f.String("tokenizer.chat_template"); tmpl != c.ChatTemplate || tmpl == "" {
			t.Errorf("%s: chat template %q", tc.preset, tmpl)
		}
		if v, _ := f.Uint("general.file_type"); v == 0 {
			t.Errorf("%s: no file type", tc.preset)
		}
	}
	if c, _ := Preset("phi-3.5-mini"); len(c.Specials) != 11 || c.NVocab != 32064 {
		t.Errorf("phi-3.5-mini vocab: %d specials, n_vocab %d", len(c.Specials), c.NVocab)
	}
}
