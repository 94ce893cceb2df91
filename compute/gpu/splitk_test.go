package gpu_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/engine"

	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model/modeltest"
)

// TestSplitKMatchesReference runs models whose ffn_down has K = 4096 with
// the split-K prefill matmul forced on (lavapipe keeps the plain matmul by
// default) and a micro-batch over 64 rows, so MatmulTuned splits it;
// prefill (including chunks shorter than the compiled rows) and decode
// logits are judged against the float64 reference and the unsplit run.
func TestSplitKMatchesReference(t *testing.T) {
	specs := []modeltest.Spec{
		{Arch: "llama", NEmbd: 256, NLayer: 1, NFF: 4096, NVocab: 300, NHead: 4, NHeadKV: 1, HeadDim: 64, Type: gguf.TypeQ4_0},
		{Arch: "llama", NEmbd: 256, NLayer: 1, NFF: 4096, NVocab: 300, NHead: 4, NHeadKV: 2, HeadDim: 64, Type: gguf.TypeQ4_K, Untied: true},
	}
	for i, s := range specs {
		s.Seed = uint64(200 + i)
		t.Run(fmt.Sprintf("%s_%s", s.Arch, s.Type), func(t *testing.T) {
			f, ids, want := referenceCase(t, s, 90, 37, 5)
			plain := gpu.New(device(t))
			plain.SetMatmulSplitK(false)
			whole, wholeLast, plainDisp := evalUbatch(t, f, ids, plain, 80)
			be := gpu.New(device(t))
			be.SetMatmulSplitK(true)
			split, splitLast, splitDisp := evalUbatch(t, f, ids, be, 80)
			// At least one split_sum more per layer (ffn_down; at these small
			// N other matmuls split too) in a prefill step.
			if splitDisp < plainDisp+s.NLayer {
				t.Fatalf("prefill step: %d dispatches split-K, %d plain: the split-K path was not taken", splitDisp, plainDisp)
			}
			for p := range ids {
				judgeVariant(t, fmt.Sprintf("pos %d: split-K", p), split[p], want[p], whole[p], "plain")
			}
			judgeVariant(t, "last of an 80+10 prefill: split-K", splitLast, want[len(ids)-1], wholeLast, "plain")
		})
	}
}

// evalUbatch loads f on be with micro-batch ub and returns every
// position's logits (prefill chunks of the engine's 32 logits rows, shorter
// than ub), the last position's logits from a prefill in ub-row chunks, and
// the dispatch count of a prefill step.
func evalUbatch(t *testing.T, f *gguf.File, ids []int32, be compute.Backend, ub int) ([][]float32, []float32, int) {
	t.Helper()
	e, err := engine.Load(context.Background(), f, engine.Options{NCtx: 128, NUbatch: ub, Backend: be})
	if err != nil {
		be.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	ctx := context.Background()
	all, err := e.Eval(ctx, ids, engine.LogitsAll)
	if err != nil {
		t.Fatal(err)
	}
	e.Reset()
	last, err := e.Eval(ctx, ids, engine.LogitsLast)
	if err != nil {
		t.Fatal(err)
	}
	return all, last[0], be.(*gpu.Backend).Stats().Dispatches
}

// judgeVariant judges the logits row got of a kernel variant: within the
// Shapes rule's 0.02 of the float64 reference want, and within 1e-3 of the
// same row from the path it replaces (base, named baseName).
func judgeVariant(t *testing.T, label string, got []float32, want []float64, base []float32, baseName string) {
	t.Helper()
	if d, at := diff(got, want); d > 0.02 {
		t.Errorf("%s: logit %d = %.5f, reference %.5f", label, at, got[at], want[at])
	}
	b64 := make([]float64, len(base))
	for k, v := range base {
		b64[k] = float64(v)
	}
	if d, at := diff(got, b64); d > 1e-3 {
		t.Errorf("%s: logit %d = %.6f, %s %.6f", label, at, got[at], baseName, b64[at])
	}
}
