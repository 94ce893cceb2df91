package gpu_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/internal/longtest"
	"github.com/webgguf/webgguf/model/modeltest"
)

// TestAttnPrefillPartsMatchReference runs prefill with 1, 2 and 4
// threads per query in the prefill attention (forced: lavapipe keeps 1 by
// default) over two micro-batches, so the second attends to the first's
// cache: every position's logits against the float64 reference, and the
// two runs against each other.
func TestAttnPrefillPartsMatchReference(t *testing.T) {
	specs := []modeltest.Spec{
		{Arch: "llama", NEmbd: 256, NLayer: 2, NFF: 512, NVocab: 300, NHead: 4, NHeadKV: 2, HeadDim: 64, Type: gguf.TypeQ8_0},
		{Arch: "qwen2", NEmbd: 224, NLayer: 1, NFF: 512, NVocab: 300, NHead: 7, NHeadKV: 1, HeadDim: 32, Type: gguf.TypeQ4_0},
	}
	for i, s := range specs {
		s.Seed = uint64(300 + i)
		t.Run(fmt.Sprintf("%s_%s", s.Arch, s.Type), func(t *testing.T) {
			f, ids, want := referenceCase(t, s, 90, 53, 7)
			run := func(parts int) ([][]float32, []float32) {
				gpu.SetAttnPrefillParts(parts)
				defer gpu.SetAttnPrefillParts(0)
				all, last, _ := evalUbatch(t, f, ids, gpu.New(device(t)), 80)
				return all, last
			}
			one, oneLast := run(1)
			for _, parts := range []int{2, 4} {
				got, gotLast := run(parts)
				for p := range ids {
					if d, at := diff(got[p], want[p]); d > 0.02 {
						t.Errorf("pos %d: %d parts: logit %d = %.5f, reference %.5f", p, parts, at, got[p][at], want[p][at])
					}
					if d, at := diff(got[p], widen(one[p])); d > 1e-3 {
						t.Errorf("pos %d: %d parts: logit %d = %.6f, 1 part %.6f", p, parts, at, got[p][at], one[p][at])
					}
				}
				if d, at := diff(gotLast, widen(oneLast)); d > 1e-3 {
					t.Errorf("last of an 80+10 prefill: %d parts: logit %d = %.6f, 1 part %.6f", parts, at, gotLast[at], oneLast[at])
				}
			}
		})
	}
}

// TestAttnPrefillTiledMatchesReference runs prefill through the
// register-tiled attention kernel (forced on lavapipe, which takes the
// per-query kernel by default) at each workgroup size and a short tile
// (each on one head size; on all three with the long tag),
// over micro-batches whose later ones attend to the earlier ones' cache:
// every position's logits against the float64 reference and against the
// per-query kernel.
func TestAttnPrefillTiledMatchesReference(t *testing.T) {
	specs := []modeltest.Spec{
		{Arch: "llama", NEmbd: 256, NLayer: 2, NFF: 512, NVocab: 300, NHead: 4, NHeadKV: 2, HeadDim: 64, Type: gguf.TypeQ8_0},
		{Arch: "qwen2", NEmbd: 256, NLayer: 1, NFF: 512, NVocab: 300, NHead: 2, NHeadKV: 1, HeadDim: 128, Type: gguf.TypeQ4_0},
		// Gemma 3's head size 256, MQA, sliding windows over ring caches
		// (split scores; Keys 16 falls back to the 8 that fit).
		{Arch: "gemma3", NEmbd: 256, NLayer: 3, NFF: 512, NVocab: 256, NHead: 4, NHeadKV: 1, HeadDim: 256, Type: gguf.TypeQ8_0, Window: 6, RopeBase: 1e6},
	}
	// Each tiling once in the default run, every tiling on every head size
	// in the long suite.
	tilings := [][]gpu.PrefillAttention{{{WG: 64}, {WG: 128, Keys: 4}}, {{WG: 256}}, {{WG: 128, Keys: 16}}}
	if longtest.Enabled {
		all := []gpu.PrefillAttention{{WG: 64}, {WG: 128, Keys: 16}, {WG: 256}, {WG: 128, Keys: 4}}
		tilings = [][]gpu.PrefillAttention{all, all, all}
	}
	for i, s := range specs {
		s.Seed = uint64(320 + i)
		t.Run(fmt.Sprintf("%s_%s_hd%d", s.Arch, s.Type, s.HeadDim), func(t *testing.T) {
			f, ids, want := referenceCase(t, s, 90, 53, 7)
			plain, plainLast, _ := evalUbatch(t, f, ids, gpu.New(device(t)), 40)
			for _, a := range tilings[i] {
				a.OnSoftware = true
				be := gpu.New(device(t))
				be.SetPrefillAttention(a)
				got, gotLast, _ := evalUbatch(t, f, ids, be, 40)
				for p := range ids {
					judgeVariant(t, fmt.Sprintf("pos %d: %+v", p, a), got[p], want[p], plain[p], "per-query kernel")
				}
				judgeVariant(t, fmt.Sprintf("last of the prefill: %+v", a), gotLast, want[len(ids)-1], plainLast, "per-query kernel")
			}
		})
	}
}

// TestLMHeadRowVariants: a prefill step that wants one logits row runs the
// lm head as a matvec (lmhead.go) and one that wants none skips it; the
// row equals the reference and the all-rows matmul's, and the dispatch
// counts show which variant ran.
func TestLMHeadRowVariants(t *testing.T) {
	s := modeltest.Spec{Arch: "llama", NEmbd: 256, NLayer: 1, NFF: 512, NVocab: 300, NHead: 4, NHeadKV: 2, HeadDim: 64, Type: gguf.TypeQ4_0, Seed: 310}
	f, ids, want := referenceCase(t, s, 40, 31, 3)
	be := gpu.New(device(t))
	e, err := engine.Load(context.Background(), f, engine.Options{NCtx: 64, NUbatch: 64, Backend: be})
	if err != nil {
		be.Close()
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	step := func(mode engine.LogitsMode) ([][]float32, int) {
		e.Reset()
		out, err := e.Eval(ctx, ids, mode)
		if err != nil {
			t.Fatal(err)
		}
		return out, be.Stats().Dispatches
	}
	// 40 rows: more than the 32 logits rows a step returns, so LogitsAll
	// takes two steps; its last one (8 rows) runs the matmul.
	all, allDisp := step(engine.LogitsAll)
	last, lastDisp := step(engine.LogitsLast)
	_, noneDisp := step(engine.LogitsNone)
	if lastDisp != allDisp || noneDisp != allDisp-1 {
		t.Errorf("dispatches per step: %d for all rows, %d for the last, %d for none; want n, n, n-1", allDisp, lastDisp, noneDisp)
	}
	if d, at := diff(last[0], want[len(ids)-1]); d > 0.02 {
		t.Errorf("last row: logit %d = %.5f, reference %.5f", at, last[0][at], want[len(ids)-1][at])
	}
	if d, at := diff(last[0], widen(all[len(ids)-1])); d > 1e-4 {
		t.Errorf("last row: logit %d = %.6f by matvec, %.6f by matmul", at, last[0][at], all[len(ids)-1][at])
	}
}

func widen(v []float32) []float64 {
	w := make([]float64, len(v))
	for i, x := range v {
		w[i] = float64(x)
	}
	return w
}
