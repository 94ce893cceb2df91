package cpu

import (
	"math"

	"github.com/webgguf/webgguf/compute"
)

// kvWrite stores row i of x ([HeadDim*NHeadKV] per row) at position Pos0+i
// of the cache laid out [kv_head][pos][dim].
func kvWrite(cache, x []float32, p compute.AttnParams, nCtx, pos0 int) {
	row := p.HeadDim * p.NHeadKV
	for i := 0; i*row < len(x); i++ {
		for h := range p.NHeadKV {
			o := (h*nCtx + pos0 + i) * p.HeadDim
			copy(cache[o:o+p.HeadDim], x[i*row+h*p.HeadDim:i*row+(h+1)*p.HeadDim])
		}
	}
}

// attention computes, for every row i and head h, softmax over positions
// 0..Pos0+i of q·k·Scale, times V, with K/V from kv head h/(NHead/NHeadKV).
func (p *program) attention(dst, q, kc, vc []float32, a compute.AttnParams, pos0, rows int) {
	hd, group := a.HeadDim, a.NHead/a.NHeadKV
	row := hd * a.NHead
	parallelFor(p.b.threads, rows*a.NHead, 1, func(w, lo, hi int) {
		scores := p.scores[w]
		for t := lo; t < hi; t++ {
			i, h := t/a.NHead, t%a.NHead
			n := pos0 + i + 1
			qh := q[i*row+h*hd : i*row+(h+1)*hd]
			kv := (h / group) * p.nCtx * hd
			mx := float32(math.Inf(-1))
			for j := range n {
				s := dot(qh, kc[kv+j*hd:kv+(j+1)*hd]) * a.Scale
				scores[j] = s
				mx = max(mx, s)
			}
			var sum float64
			for j := range n {
				e := float32(math.Exp(float64(scores[j] - mx)))
				scores[j] = e
				sum += float64(e)
			}
			out := dst[i*row+h*hd : i*row+(h+1)*hd]
			clear(out)
			for j := range n {
				axpy(out, scores[j], vc[kv+j*hd:kv+(j+1)*hd])
			}
			inv := float32(1 / sum)
			for d := range out {
				out[d] *= inv
			}
		}
	})
}
