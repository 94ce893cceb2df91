package shaders

import (
	"math"
	"testing"
)

// TestAttnMerge checks the flash-decoding merge against float64 on random
// partials: split counts from 1 to 128 (lanes left idle, ragged last
// steps), empty splits (m = -3e38, l = 0), head dims that fill part of a
// 64-dim workgroup (32, 48, 96) and several workgroups (128, 256), and
// each lane count the key allows.
func TestAttnMerge(t *testing.T) {
	r := newRand(t)
	for f16, d := range gpus(t) {
		for _, c := range []struct{ D, H, S, wg int }{
			{32, 3, 1, 0}, {48, 2, 5, 0}, {64, 4, 128, 0}, {96, 2, 37, 0},
			{128, 3, 66, 0}, {256, 2, 128, 0}, {256, 1, 3, 0},
			{128, 2, 67, 64}, {80, 2, 19, 128}, {64, 2, 9, 1024},
		} {
			part := make([]float32, c.H*c.S*(c.D+2))
			empty := make([]bool, c.H*c.S)
			for hs := range empty {
				b := hs * (c.D + 2)
				// A third of the splits of long merges are empty, never a
				// head's first, so every head has weight.
				if c.S > 2 && hs%c.S != 0 && r.IntN(3) == 0 {
					empty[hs] = true
					part[b] = -3e38
					continue
				}
				part[b] = float32(r.Float64()*10 - 5)
				part[b+1] = float32(0.5 + r.Float64()*20)
				copy(part[b+2:b+2+c.D], randVec(r, c.D, 0.01, 3))
			}
			want := make([]float64, c.H*c.D)
			tol := make([]float64, c.H*c.D)
			for h := 0; h < c.H; h++ {
				M := math.Inf(-1)
				for s := 0; s < c.S; s++ {
					if !empty[h*c.S+s] {
						M = math.Max(M, float64(part[(h*c.S+s)*(c.D+2)]))
					}
				}
				for i := 0; i < c.D; i++ {
					num, den, mag := 0.0, 0.0, 0.0
					for s := 0; s < c.S; s++ {
						if empty[h*c.S+s] {
							continue
						}
						b := (h*c.S + s) * (c.D + 2)
						w := math.Exp(float64(part[b]) - M)
						num += w * float64(part[b+2+i])
						den += w * float64(part[b+1])
						mag += w * math.Abs(float64(part[b+2+i]))
					}
					want[h*c.D+i] = num / den
					tol[h*c.D+i] = 1e-5*mag/den + 1e-7
				}
			}
			key := Key{Op: OpAttnMerge, HeadDim: c.D, F16: f16, WG: c.wg}
			out := launch(t, d, key, AttnMergeParams{Heads: uint32(c.H), Splits: uint32(c.S)}, Shape{Heads: c.H},
				f32Bytes(part), poison(4*c.H*c.D))[1]
			checkClose(t, name(key.String(), " H=", c.H, " splits=", c.S), bytesF32(out), want, tol)
		}
	}
}
