package cpu

import (
	"math"

	"github.com/webgguf/webgguf/compute"
)

// rope rotates each head's first NRot dimensions of row i by angles
// (Pos0+i)·Scale·Base^(-2j/NRot)/freqs[j], j the pair index (freqs nil
// means 1), times p.Mscale() (ggml's attn_factor); pairs are adjacent (normal) or NRot/2 apart (neox). Angles are
// computed in float64: ggml
// accumulates them in f32, the float64 reference does not, and the
// difference is far below the tolerance either way.
func rope(dst, x []float32, p compute.RopeParams, freqs []float32, pos0 int) {
	ropeStep(dst, x, p, freqs, pos0, 1)
}

// ropeStep is rope with row i at position pos0 + step·i: step 1 for a
// batch of tokens, 0 for a context shift's rows that all move by pos0.
func ropeStep(dst, x []float32, p compute.RopeParams, freqs []float32, pos0, step int) {
	row := p.NHeads * p.HeadDim
	half := p.NRot / 2
	for i := 0; i*row < len(x); i++ {
		pos := float64(pos0 + step*i)
		copy(dst[i*row:(i+1)*row], x[i*row:(i+1)*row])
		for j := range half {
			theta := pos * float64(p.Scale) * math.Pow(float64(p.Base), -2*float64(j)/float64(p.NRot))
			if freqs != nil {
				theta /= float64(freqs[j])
			}
			sin, cos := math.Sincos(theta)
			c, s := float32(cos*float64(p.Mscale())), float32(sin*float64(p.Mscale()))
			for h := range p.NHeads {
				base := i*row + h*p.HeadDim
				a, b := base+2*j, base+2*j+1
				if p.Mode == compute.RopeNeox {
					a, b = base+j, base+j+half
				}
				x0, x1 := x[a], x[b]
				dst[a] = x0*c - x1*s
				dst[b] = x0*s + x1*c
			}
		}
	}
}
