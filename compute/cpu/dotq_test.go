package cpu

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
)

// TestFusedDotsMatchDequantize checks every fused kernel against the
// float64 inner product of gguf.Dequantize's output (the dequantizers are
// proven against llama.cpp in package gguf), on random rows of several
// blocks with offsets in x so that the per-group sums matter.
func TestFusedDotsMatchDequantize(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const k = 768
	kernels := map[string]rowDot{}
	for typ, fn := range fusedDots {
		kernels[typ.String()] = fn
	}
	for name, fn := range wideDots {
		kernels[name+" wide"] = fn
	}
	for name, fn := range kernels {
		typ, _ := gguf.ParseType(strings.TrimSuffix(name, " wide"))
		for trial := range 20 {
			wf := make([]float32, k)
			x := make([]float32, k)
			for i := range wf {
				wf[i] = float32(rng.NormFloat64())
				x[i] = float32(rng.NormFloat64() + float64(trial%3))
			}
			raw, err := gguf.Quantize(typ, wf)
			if err != nil {
				t.Fatalf("%s: %v", typ, err)
			}
			deq, err := gguf.Dequantize(typ, raw, k)
			if err != nil {
				t.Fatal(err)
			}
			var want, scale float64
			for i := range deq {
				want += float64(deq[i]) * float64(x[i])
				scale += math.Abs(float64(deq[i]) * float64(x[i]))
			}
			s16 := make([]float32, k/16)
			sums16(s16, x)
			got := fn(raw, x, s16)
			if math.Abs(float64(got)-want) > 1e-5*scale {
				t.Errorf("%s trial %d: fused %g, float64 %g (scale %g)", name, trial, got, want, scale)
			}
		}
	}
}

// An I2_S weight (one scale per tensor, after the rows) is refused with a
// WeightError naming it rather than read row by row without its scale.
func TestI2SWeightRefused(t *testing.T) {
	w := compute.NewWeight("blk.0.ffn_up.weight", gguf.TypeI2_S, 256, 4)
	b := New(1)
	err := b.LoadWeight(w, 256*4/4+32, func(fn func(int64, []byte) error) error { return fn(0, make([]byte, 256*4/4+32)) })
	var we *WeightError
	if !errors.As(err, &we) || we.Tensor != w.Name {
		t.Fatalf("got %v, want a WeightError for %s", err, w.Name)
	}
}
