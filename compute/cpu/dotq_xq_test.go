package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/webgguf/webgguf/gguf"
)

// TestDotQ4KXQMatchesFloat64 checks the integer q4_K kernels (one row,
// and either row of the two-row kernel) against the
// float64 inner product of gguf.Dequantize's row with the unquantized
// activations. Its only extra error is the activations' rounding, at most
// dx/2 per element: the bound is Σ|w|·dx/2 (plus f32 accumulation).
func TestDotQ4KXQMatchesFloat64(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const k = 768
	for trial := range 40 {
		wf, x := make([]float32, k), make([]float32, k)
		for i := range wf {
			wf[i] = float32(rng.NormFloat64())
			x[i] = float32(rng.NormFloat64()*float64(1+trial%4) + float64(trial%3))
		}
		if trial == 0 {
			clear(x[64:96]) // an all-zero block: scale 0
		}
		raw, err := gguf.Quantize(gguf.TypeQ4_K, wf)
		if err != nil {
			t.Fatal(err)
		}
		// dotQ4KXQ2's other row: different random weights, so that a
		// mix-up of the two rows shows.
		for i := range wf {
			wf[i] = float32(rng.NormFloat64())
		}
		other, err := gguf.Quantize(gguf.TypeQ4_K, wf)
		if err != nil {
			t.Fatal(err)
		}
		deq, err := gguf.Dequantize(gguf.TypeQ4_K, raw, k)
		if err != nil {
			t.Fatal(err)
		}
		xp, xd := make([]uint64, xqWords(k)), make([]float32, k/32)
		quantizeXQ(xp, xd, x)
		var want, scale, bound float64
		for i := range deq {
			want += float64(deq[i]) * float64(x[i])
			scale += math.Abs(float64(deq[i]) * float64(x[i]))
			bound += math.Abs(float64(deq[i])) * float64(xd[i/32]) / 2
		}
		s16 := make([]float32, k/16)
		sums16(s16, x)
		pairA := func(w []byte, xp []uint64, xd, s16 []float32) float32 {
			a, _ := dotQ4KXQ2(w, other, xp, xd, s16)
			return a
		}
		pairB := func(w []byte, xp []uint64, xd, s16 []float32) float32 {
			_, b := dotQ4KXQ2(other, w, xp, xd, s16)
			return b
		}
		for name, fn := range map[string]func([]byte, []uint64, []float32, []float32) float32{"xq": dotQ4KXQ, "xq2 first": pairA, "xq2 second": pairB} {
			got := float64(fn(raw, xp, xd, s16))
			if d := math.Abs(got - want); d > bound+1e-5*scale {
				t.Errorf("trial %d: %s kernel %g, float64 %g: |Δ| %g > bound %g", trial, name, got, want, d, bound+1e-5*scale)
			}
		}
	}
}

// TestDotQ4KXQ4MatchesFloat64 checks the four-token-row q4_K kernel
// (prefill) against the float64 products of the dequantized row with each
// of four different random activation rows, within the same bound.
func TestDotQ4KXQ4MatchesFloat64(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	const k = 512
	for trial := range 20 {
		wf := make([]float32, k)
		for i := range wf {
			wf[i] = float32(rng.NormFloat64())
		}
		raw, err := gguf.Quantize(gguf.TypeQ4_K, wf)
		if err != nil {
			t.Fatal(err)
		}
		deq, err := gguf.Dequantize(gguf.TypeQ4_K, raw, k)
		if err != nil {
			t.Fatal(err)
		}
		x := make([]float32, 4*k)
		for i := range x {
			x[i] = float32(rng.NormFloat64()*float64(1+i/k) + float64(trial%3))
		}
		xp, xd, s16 := make([]uint64, 4*xqWords(k)), make([]float32, 4*k/32), make([]float32, 4*k/16)
		for n := range 4 {
			quantizeXQ(xp[n*xqWords(k):(n+1)*xqWords(k)], xd[n*k/32:(n+1)*k/32], x[n*k:(n+1)*k])
			sums16(s16[n*k/16:(n+1)*k/16], x[n*k:(n+1)*k])
		}
		got := dotQ4KXQ4(raw, xp, xd, s16)
		for n := range 4 {
			var want, scale, bound float64
			for i := range deq {
				want += float64(deq[i]) * float64(x[n*k+i])
				scale += math.Abs(float64(deq[i]) * float64(x[n*k+i]))
				bound += math.Abs(float64(deq[i])) * float64(xd[n*k/32+i/32]) / 2
			}
			if d := math.Abs(float64(got[n]) - want); d > bound+1e-5*scale {
				t.Errorf("trial %d token row %d: xq4 kernel %g, float64 %g: |Δ| %g > bound %g", trial, n, got[n], want, d, bound+1e-5*scale)
			}
		}
	}
}
