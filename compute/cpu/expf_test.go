package cpu

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExpfMatchesFloat64 checks expf against float64 math.Exp over the
// range the softmax and SwiGLU use, on random arguments and the range
// ends: relative error within 2 float32 ulps (2.4e-7) where the result is
// normal, 0 below the cut-off and +Inf above.
func TestExpfMatchesFloat64(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	xs := []float32{0, -0, 1, -1, 0.5, -0.5, 88.7, -87.3, 20, -20}
	for range 100000 {
		xs = append(xs, float32(rng.Float64()*176-88))
	}
	for _, x := range xs {
		got := float64(expf(x))
		if x < -87.33654 { // below float32's normal range: 0 by design
			if got != 0 {
				t.Fatalf("expf(%g) = %g, want 0", x, got)
			}
			continue
		}
		want := math.Exp(float64(x))
		if d := math.Abs(got-want) / want; d > 2.4e-7 {
			t.Fatalf("expf(%g) = %g, float64 %g: relative error %.3g", x, got, want, d)
		}
	}
	if v := expf(-100); v != 0 {
		t.Errorf("expf(-100) = %g, want 0", v)
	}
	if v := expf(100); !math.IsInf(float64(v), 1) {
		t.Errorf("expf(100) = %g, want +Inf", v)
	}
	if v := expf(float32(math.Inf(-1))); v != 0 {
		t.Errorf("expf(-Inf) = %g, want 0", v)
	}
}
