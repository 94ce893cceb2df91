package gpu_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/enginetest"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
	"github.com/webgguf/webgguf/model/modeltest"
)

// TestFusionsPerArchitecture states, for each architecture's decode graph,
// which fusions fire and how many kernels one decode step dispatches, so
// that a Forward emitting its nodes differently (or a fusion that stops
// matching) fails here instead of showing up as a slower benchmark.
//
// A llama block with q8_0 weights is 5 dispatches: the QKV matvec with the
// attention norm (norm) and RoPE + KV write in its epilogue (qkv_rope),
// attention, the output matvec with the residual add, the SwiGLU matvec
// with the FFN norm, the down matvec with the residual add. Around the
// layers: get_rows, the LM head with the output norm, and one more (the
// logits row's copy), so 2 layers are 13. Qwen2 (biases) is the same.
// Qwen3's q/k norms sit between the QKV matvec and RoPE, so RoPE + KV
// write runs as its own rope_kv with both norms inside (rope_norm): 6 a
// layer, 15. Gemma 3 is 6 a layer: QKV with the attention norm and,
// before it, the previous layer's post-FFN norm with its residual add
// (post_norm, moved into the QKV matvec: post_in), rope_kv with the q/k
// norms, attention, output matvec, the GeGLU matvec with the FFN norm and
// the post-attention norm with the residual add (post_in again), the down
// matvec; the last layer's post-FFN norm runs alone, before the LM head;
// plus the embedding scale: 6 layers are 41. Gemma 2 has no q/k norms, so
// RoPE + KV write go back into the QKV epilogue (qkv_rope): 5 a layer,
// plus the last post-FFN norm, the embedding scale and the final soft-cap:
// 4 layers are 26 (lavapipe's storage-buffer limit takes the QKV matvec's
// 13 bindings). SmolLM3 is llama except on its NoPE
// layer (3 of 4), where the KV write runs alone after the QKV matvec: 6
// dispatches there, 4 layers are 24. Phi-3 is llama's block read through
// views of its fused attn_qkv and ffn_up, with NEOX partial rotary (32 of
// 48) and LongRoPE factors: every llama fusion still fires (QKV with RoPE
// and the KV write in its epilogue, SwiGLU over the gate and up views), 5
// a layer, so 3 layers are 18. BitNet is llama's block plus two sub-norms,
// each running inside the matvec that follows it (the output matvec with
// attn_sub_norm, the down matvec with ffn_sub_norm, both with the residual
// add): still 5 a layer over TQ2_0 weights, so 4 layers are 23.
func TestFusionsPerArchitecture(t *testing.T) {
	llama := map[string]int{"qkv": 2, "qkv_rope": 2, "rope_kv": 2, "rope_norm": 0, "residual": 4, "glu": 2, "norm": 5, "post_norm": 0, "post_in": 0}
	cases := []struct {
		name       string
		fusions    map[string]int
		dispatches int
		spec       *modeltest.Spec // a generated model instead of the fixture name
	}{
		{"tiny-llama-q8_0", llama, 13, nil},
		{"tiny-qwen2-q8_0", llama, 13, nil},
		{"tiny-qwen3-q8_0", map[string]int{"qkv": 2, "qkv_rope": 0, "rope_kv": 2, "rope_norm": 2, "residual": 4, "glu": 2, "norm": 5, "post_norm": 0}, 15, nil},
		{"tiny-gemma3-q8_0", map[string]int{"qkv": 6, "qkv_rope": 0, "rope_kv": 6, "rope_norm": 6, "residual": 0, "glu": 6, "norm": 13, "post_norm": 12, "post_in": 11}, 41, nil},
		{"tiny-gemma2-q4_0", map[string]int{"qkv": 4, "qkv_rope": 4, "rope_kv": 4, "rope_norm": 0, "residual": 0, "glu": 4, "norm": 9, "post_norm": 8, "post_in": 7}, 26, nil},
		{"tiny-phi3-q8_0", map[string]int{"qkv": 3, "qkv_rope": 3, "rope_kv": 3, "rope_norm": 0, "residual": 6, "glu": 3, "norm": 7, "post_norm": 0, "post_in": 0}, 18, nil},
		{"tiny-bitnet-tq2_0", map[string]int{"qkv": 4, "qkv_rope": 4, "rope_kv": 4, "rope_norm": 0, "residual": 8, "glu": 4, "norm": 17, "post_norm": 0, "post_in": 0}, 23, nil},
		// Gemma 3 1B's attention shape (MQA, head 256): split + merge at
		// every range on the wide kernel, so 7 a layer: 7 layers are 54.
		{"gemma3-mqa256", map[string]int{"qkv": 7, "qkv_rope": 0, "rope_kv": 7, "rope_norm": 7, "residual": 0, "glu": 7, "norm": 15, "post_norm": 14, "post_in": 13}, 54,
			&modeltest.Spec{Arch: "gemma3", NEmbd: 256, NLayer: 7, NFF: 512, NVocab: 256, NHead: 4, NHeadKV: 1, HeadDim: 256, Type: gguf.TypeQ8_0, Window: 4, RopeBase: 1e6}},
		{"smollm3", map[string]int{"qkv": 4, "qkv_rope": 3, "rope_kv": 3, "rope_norm": 0, "residual": 8, "glu": 4, "norm": 9, "post_norm": 0}, 24, &modeltest.Spec{Arch: "smollm3", NEmbd: 256, NLayer: 4, NFF: 512, NVocab: 256,
			NHead: 4, NHeadKV: 1, HeadDim: 64, Type: gguf.TypeQ8_0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var f *gguf.File
			var err error
			if c.spec != nil {
				f, err = modeltest.Open(*c.spec)
			} else {
				f, err = gguf.OpenPath(filepath.Join(enginetest.Testdata(), "models", c.name+".gguf"))
			}
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			m, err := model.Load(f)
			if err != nil {
				t.Fatal(err)
			}
			g := compute.NewGraph(1, 1)
			if err := m.Forward(g, model.NewKVCache(m.Config(), 512, 64)); err != nil {
				t.Fatal(err)
			}
			got := gpu.FusionCounts(g)
			t.Logf("%s: %d layers, fusions %v", c.name, m.Config().NLayer, got)
			for k, v := range c.fusions {
				if got[k] != v {
					t.Errorf("%s fusions: %d, want %d", k, got[k], v)
				}
			}
			b := gpu.New(device(t))
			e, err := engine.Load(context.Background(), f, engine.Options{NCtx: 512, NUbatch: 64, Backend: b})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if _, err := e.Eval(context.Background(), []int32{1}, engine.LogitsLast); err != nil {
				t.Fatal(err)
			}
			d := b.Stats().Dispatches
			t.Logf("%s: %d dispatches a decode step", c.name, d)
			if d != c.dispatches {
				t.Errorf("%d dispatches a decode step, want %d", d, c.dispatches)
			}
		})
	}
}
