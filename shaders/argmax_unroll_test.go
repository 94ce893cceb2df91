package shaders

import (
	"math"
	"testing"
)

// argmax loads U = 16 logits per thread a step and finishes with a
// remainder loop: lengths below one step (N < WG), between, and of whole
// steps plus a tail, with ties planted within one thread's step (i, i+WG),
// across threads and across the step/remainder boundary, and NaN both
// in a step and in the remainder, against a float64 scan.
func TestArgmaxSteps(t *testing.T) {
	r := newRand(t)
	for f16, d := range gpus(t) {
		const wg = 256
		for _, N := range []int{3, 200, wg * 16, wg*16 + 77, wg*16*3 + wg*5 + 9, 151936} {
			x := randVec(r, N, 0.001, 30)
			plant := func(i int, v float32) {
				if i < N {
					x[i] = v
				}
			}
			hi := float32(31)
			plant(N-1, hi)     // in the remainder (or the last step)
			plant(wg*16+5, hi) // the first index of the second step's thread 5
			plant(5+wg, hi)    // thread 5, second element of its first step: wins when present
			plant(N/2, float32(math.NaN()))
			plant(1, float32(math.NaN()))
			out := bytesU32(launch(t, d, Key{Op: OpArgmax, F16: f16}, ArgmaxParams{N: uint32(N)}, Shape{}, f32Bytes(x), poison(8))[1])
			best, bi := math.Inf(-1), -1
			for i, v := range x {
				if !math.IsNaN(float64(v)) && float64(v) > best {
					best, bi = float64(v), i
				}
			}
			if out[0] != uint32(bi) || math.Float32frombits(out[1]) != x[bi] {
				t.Errorf("N %d: argmax = (%d, %g), want (%d, %g)", N, out[0], math.Float32frombits(out[1]), bi, x[bi])
			}
		}
	}
}
