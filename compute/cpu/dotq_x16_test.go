package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/webgguf/webgguf/gguf"
)

// TestDotQ6KX16MatchesFloat64 checks the integer q6_K kernel against the
// float64 inner product of gguf.Dequantize's row with the unquantized
// activations, on random rows with offsets and outliers in x. The kernel's
// integer sums are exact, so its only extra error is the activations'
// rounding, at most dx/2 per element: the bound is Σ|w|·dx/2 (plus f32
// rounding of the block sums).
func TestDotQ6KX16MatchesFloat64(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const k = 768
	for trial := range 40 {
		wf, x := make([]float32, k), make([]float32, k)
		for i := range wf {
			wf[i] = float32(rng.NormFloat64())
			x[i] = float32(rng.NormFloat64()*float64(1+trial%4) + float64(trial%3))
		}
		switch trial % 5 {
		case 0:
			clear(x[256:512]) // an all-zero block: scale 0
		case 1:
			x[rng.IntN(k)] = 100 // an outlier sets its block's scale
		}
		raw, err := gguf.Quantize(gguf.TypeQ6_K, wf)
		if err != nil {
			t.Fatal(err)
		}
		deq, err := gguf.Dequantize(gguf.TypeQ6_K, raw, k)
		if err != nil {
			t.Fatal(err)
		}
		xp, xs, xu := make([]uint64, x16Words(k)), make([]float32, k/256), make([]int32, k/16)
		quantizeX16(xp, xs, xu, x)
		var want, scale, bound float64
		for i := range deq {
			want += float64(deq[i]) * float64(x[i])
			scale += math.Abs(float64(deq[i]) * float64(x[i]))
			bound += math.Abs(float64(deq[i])) * float64(xs[i/256]) / 2
		}
		for name, fn := range map[string]func([]byte, []uint64, []float32, []int32) float32{"x16": dotQ6KX16} {
			got := float64(fn(raw, xp, xs, xu))
			if d := math.Abs(got - want); d > bound+1e-5*scale {
				t.Errorf("trial %d: %s kernel %g, float64 %g: |Δ| %g > bound %g", trial, name, got, want, d, bound+1e-5*scale)
			}
		}
	}
}

// TestQuantizeX16Extremes checks the packing at the ends of the 16-bit
// range: a block whose every element is ±max|x| still fits the lanes.
func TestQuantizeX16Extremes(t *testing.T) {
	const k = 256
	x := make([]float32, k)
	for i := range x {
		x[i] = float32(1-2*(i%2)) * 3.7
	}
	wf := make([]float32, k)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range wf {
		wf[i] = float32(rng.NormFloat64())
	}
	raw, err := gguf.Quantize(gguf.TypeQ6_K, wf)
	if err != nil {
		t.Fatal(err)
	}
	deq, _ := gguf.Dequantize(gguf.TypeQ6_K, raw, k)
	xp, xs, xu := make([]uint64, x16Words(k)), make([]float32, 1), make([]int32, k/16)
	quantizeX16(xp, xs, xu, x)
	var want float64
	for i := range deq {
		want += float64(deq[i]) * float64(x[i])
	}
	got := float64(dotQ6KX16(raw, xp, xs, xu))
	if math.Abs(got-want) > 1e-4*math.Abs(want)+1e-4 {
		t.Errorf("x16 kernel %g, float64 %g", got, want)
	}
}
