package gpu_test

import (
	"context"
	"math"
	"testing"

	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/enginetest"
)

// TestPlainNormMatchesFloat64 decodes the f16 shape (plain-format weights)
// with the RMSNorms fused into its plain matvecs, as on hardware adapters
// (forced here: software adapters keep the norm dispatches), and without:
// every logit within 0.02 of the float64 reference (the Shapes rule), and
// the fused program one dispatch per layer and one more shorter (each
// layer's FFN norm into its SwiGLU matvec, the output norm into the lm
// head; the attention norm is in matvec_qkv either way).
func TestPlainNormMatchesFloat64(t *testing.T) {
	s := enginetest.ShapeSpecs[2]
	s.Seed = 61
	const n = 5
	f, ids, want := referenceCase(t, s, n, 29, 3)
	disp := map[bool]int{}
	for _, on := range []bool{true, false} {
		gpu.ForcePlainNorm(on) // programs compile at Load or at the first Eval
		be := gpu.New(device(t))
		e, err := engine.Load(context.Background(), f, engine.Options{NCtx: 32, NUbatch: 8, Backend: be})
		if err != nil {
			gpu.ForcePlainNorm(false)
			t.Fatal(err)
		}
		for p := 0; p < n; p++ {
			l, err := e.Eval(context.Background(), ids[p:p+1], engine.LogitsLast)
			if err != nil {
				e.Close()
				gpu.ForcePlainNorm(false)
				t.Fatal(err)
			}
			disp[on] = be.Stats().Dispatches
			for i, w := range want[p] {
				if x := math.Abs(float64(l[0][i]) - w); x > 0.02 {
					e.Close()
					gpu.ForcePlainNorm(false)
					t.Fatalf("plain norm %v, pos %d: logit %d = %.5f, reference %.5f", on, p, i, l[0][i], w)
				}
			}
		}
		e.Close()
		gpu.ForcePlainNorm(false)
	}
	if disp[false]-disp[true] != s.NLayer+1 {
		t.Errorf("dispatches per step: fused %d, unfused %d: want %d apart", disp[true], disp[false], s.NLayer+1)
	}
}
