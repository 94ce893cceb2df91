package enginetest

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/reference"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model/modeltest"
)

// ShapeSpecs cover what the fixtures do not: GQA ratios 1, 2, 4, 8, head
// width 64 and 128, n_embd not a multiple of 256, partial rotary, untied
// output, Llama 3.1 rope_freqs, qwen2 biases and qwen3 norms with
// head_dim ≠ n_embd/n_head, gemma3's sliding windows over ring caches,
// gemma2's soft-caps, smollm3's layers without RoPE, phi3's fused
// tensors with LongRoPE factors (long and short) and attention factor.
var ShapeSpecs = []modeltest.Spec{
	{Arch: "llama", NEmbd: 320, NLayer: 2, NFF: 480, NVocab: 300, NHead: 5, NHeadKV: 5, HeadDim: 64, Type: gguf.TypeQ8_0},
	{Arch: "llama", NEmbd: 256, NLayer: 2, NFF: 512, NVocab: 256, NHead: 2, NHeadKV: 1, HeadDim: 128, Type: gguf.TypeQ4_K, Untied: true},
	{Arch: "llama", NEmbd: 512, NLayer: 1, NFF: 256, NVocab: 200, NHead: 8, NHeadKV: 2, HeadDim: 64, NRot: 32, Type: gguf.TypeF16},
	{Arch: "llama", NEmbd: 256, NLayer: 2, NFF: 256, NVocab: 128, NHead: 4, NHeadKV: 1, HeadDim: 64, Type: gguf.TypeQ8_0, RopeFreqs: true, RopeBase: 500000},
	{Arch: "llama", NEmbd: 192, NLayer: 2, NFF: 320, NVocab: 160, NHead: 8, NHeadKV: 1, HeadDim: 64, Type: gguf.TypeQ4_0},
	{Arch: "qwen2", NEmbd: 224, NLayer: 2, NFF: 288, NVocab: 256, NHead: 4, NHeadKV: 2, HeadDim: 64, Type: gguf.TypeQ5_1, Untied: true, RopeBase: 1e6},
	{Arch: "qwen3", NEmbd: 160, NLayer: 2, NFF: 256, NVocab: 192, NHead: 4, NHeadKV: 1, HeadDim: 128, Type: gguf.TypeQ8_0, RopeBase: 1e6},
	// Gemma 3: head_dim 256 as the real 270M/1B; windows of 4 and 3 on
	// 32 positions, so the window layers' ring caches (window + 5 - 1
	// rows) wrap several times; layer 5 of 7 is global.
	{Arch: "gemma3", NEmbd: 256, NLayer: 7, NFF: 512, NVocab: 256, NHead: 4, NHeadKV: 1, HeadDim: 256, Type: gguf.TypeQ8_0, Window: 4, RopeBase: 1e6},
	{Arch: "gemma3", NEmbd: 384, NLayer: 2, NFF: 256, NVocab: 192, NHead: 4, NHeadKV: 2, HeadDim: 128, Type: gguf.TypeQ4_0, Window: 3, Untied: true},
	// Gemma 2: head_dim 256 as the real 2B, window 4 on layers 0 and 2,
	// soft-caps small enough to bite (scaled scores and logits are O(1)
	// here; the real 50 and 30 would leave them linear).
	{Arch: "gemma2", NEmbd: 256, NLayer: 4, NFF: 512, NVocab: 256, NHead: 4, NHeadKV: 2, HeadDim: 256, Type: gguf.TypeQ4_K, Window: 4,
		Set: []gguf.KV{{Key: "gemma2.attn_logit_softcapping", Value: gguf.ValueOf(float32(1))},
			{Key: "gemma2.final_logit_softcapping", Value: gguf.ValueOf(float32(4))}}},
	// SmolLM3: no RoPE on layer 3.
	{Arch: "smollm3", NEmbd: 256, NLayer: 4, NFF: 384, NVocab: 256, NHead: 4, NHeadKV: 1, HeadDim: 64, Type: gguf.TypeQ8_0, RopeBase: 5e6},
	// Phi-4-mini style: partial rotary (48 of 64), tied, LongRoPE with an
	// original context of 8 < the engine's 32 and the 13 tokens: the long
	// factors; Phi-3.5's attention factor sqrt(1+ln 32/ln 4096).
	{Arch: "phi3", NEmbd: 256, NLayer: 2, NFF: 384, NVocab: 256, NHead: 4, NHeadKV: 2, HeadDim: 64, NRot: 48, Type: gguf.TypeQ8_0, RopeFreqs: true,
		Set: []gguf.KV{{Key: "phi3.rope.scaling.original_context_length", Value: gguf.ValueOf(uint32(8))},
			{Key: "phi3.rope.scaling.attn_factor", Value: gguf.ValueOf(float32(1.1902381))}}},
	// Phi-3.5-mini style: full rotary, no GQA, untied, short factors.
	{Arch: "phi3", NEmbd: 192, NLayer: 2, NFF: 256, NVocab: 256, NHead: 4, NHeadKV: 4, HeadDim: 48, Type: gguf.TypeQ4_0, RopeFreqs: true, Untied: true,
		Set: []gguf.KV{{Key: "phi3.rope.scaling.attn_factor", Value: gguf.ValueOf(float32(1.1902381))}}},
	// BitNet: sub-norms, every matrix (the embedding and head too) TQ1_0.
	{Arch: "bitnet", NEmbd: 256, NLayer: 2, NFF: 512, NVocab: 256, NHead: 4, NHeadKV: 1, HeadDim: 64, Type: gguf.TypeTQ1_0, RopeBase: 5e5},
}

// Shapes compares every logit of the backend with the float64 reference (engine/reference, itself proven against
// llama.cpp's float64 fixtures) on generated models, through both the
// batched prefill graph (micro-batches of 5, so positions cross batch
// boundaries) and the single-token decode graph. The tolerance is the
// refcheck rule's floor, 0.02, applied to the whole logit row.
func Shapes(t *testing.T, nb NewBackend) {
	for i, s := range ShapeSpecs {
		t.Run(fmt.Sprintf("%s_e%d_h%d_kv%d_d%d_%s", s.Arch, s.NEmbd, s.NHead, s.NHeadKV, s.HeadDim, s.Type), func(t *testing.T) {
			t.Parallel()
			_, f, ids := ShapeModel(t, i)
			want, err := reference.Logits(f, ids)
			if err != nil {
				t.Fatal(err)
			}
			opts := engine.Options{NCtx: 32, NUbatch: 5}
			if nb != nil {
				opts.Backend = nb(t)
			}
			e, err := engine.Load(context.Background(), f, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			batched, decoded := PrefillAndDecode(t, e, ids)
			var spread float64
			for p := range ids {
				spread = math.Max(spread, maxAbs(want[p]))
				for path, got := range map[string][][]float32{"prefill": batched, "decode": decoded} {
					if d, at := maxDiff(got[p], want[p]); d > 0.02 {
						t.Errorf("%s pos %d: logit %d = %.5f, reference %.5f", path, p, at, got[p][at], want[p][at])
					}
				}
			}
			d, _ := maxDiff(batched[len(ids)-1], want[len(ids)-1])
			t.Logf("max |logit| %.2f, last-position max |Δ| %.2e", spread, d)
			if spread < 1 {
				t.Errorf("degenerate model: max |logit| %.3g", spread)
			}
		})
	}
}

func maxDiff(got []float32, want []float64) (float64, int) {
	var d float64
	at := 0
	for i, w := range want {
		if x := math.Abs(float64(got[i]) - w); x > d {
			d, at = x, i
		}
	}
	return d, at
}

func maxAbs(x []float64) float64 {
	var m float64
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

// PrefillAndDecode runs ids through e twice and returns each position's
// logits both ways: one batched Eval (the prefill path, in e's micro-batches)
// and, after a Reset, one Eval per token (the decode path).
func PrefillAndDecode(t *testing.T, e *engine.Engine, ids []int32) (batched, decoded [][]float32) {
	t.Helper()
	ctx := context.Background()
	batched, err := e.Eval(ctx, ids, engine.LogitsAll)
	if err != nil {
		t.Fatal(err)
	}
	e.Reset()
	for _, id := range ids {
		l, err := e.Eval(ctx, []int32{id}, engine.LogitsLast)
		if err != nil {
			t.Fatal(err)
		}
		decoded = append(decoded, l[0])
	}
	return batched, decoded
}

// ShapeModel writes ShapeSpecs[i] with the Shapes judgement's seed and
// returns the spec as written, the model and its 13 token ids.
func ShapeModel(t *testing.T, i int) (modeltest.Spec, *gguf.File, []int32) {
	t.Helper()
	s := ShapeSpecs[i]
	s.Seed = uint64(i + 1)
	f, err := modeltest.Open(s)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int32, 13)
	for j := range ids {
		ids[j] = int32((j*37 + 11) % s.NVocab)
	}
	return s, f, ids
}
