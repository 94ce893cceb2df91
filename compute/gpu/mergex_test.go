package gpu_test

import (
	"context"
	"math"
	"testing"

	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/enginetest"
)

// TestMergeXMatchesFloat64 decodes Gemma 3's attention shape (MQA, head
// 256, windows over rings, 3 splits) with the split partials merged inside
// the output matvec (SetMergeX) and compares every logit with the float64
// reference (0.02, the Shapes rule); each step dispatches one kernel a
// layer fewer than without it (no attn_merge).
func TestMergeXMatchesFloat64(t *testing.T) {
	s := enginetest.ShapeSpecs[7]
	if s.Arch != "gemma3" || s.NHeadKV != 1 || s.HeadDim != 256 {
		t.Fatalf("ShapeSpecs[7] is %+v, want gemma3 MQA head 256", s)
	}
	s.Seed = 71
	const n = 12
	f, ids, want := referenceCase(t, s, n, 53, 7)
	disp := map[bool]int{}
	for _, on := range []bool{false, true} {
		be := gpu.New(device(t))
		be.SetMergeX(on)
		e, err := engine.Load(context.Background(), f, engine.Options{NCtx: 300, NUbatch: 16, Backend: be})
		if err != nil {
			t.Fatal(err)
		}
		var worst float64
		for p := range n {
			l, err := e.Eval(context.Background(), ids[p:p+1], engine.LogitsLast)
			if err != nil {
				t.Fatal(err)
			}
			disp[on] = be.Stats().Dispatches
			for i, w := range want[p] {
				d := math.Abs(float64(l[0][i]) - w)
				worst = max(worst, d)
				if d > 0.02 {
					t.Fatalf("merge-x %v, pos %d: logit %d = %.5f, reference %.5f", on, p, i, l[0][i], w)
				}
			}
		}
		e.Close()
		t.Logf("merge-x %v: max |Δ| %.2e, %d dispatches a step", on, worst, disp[on])
	}
	if disp[false]-disp[true] != s.NLayer {
		t.Errorf("dispatches %d with merge-x, %d without: want one a layer (%d) fewer", disp[true], disp[false], s.NLayer)
	}
}
