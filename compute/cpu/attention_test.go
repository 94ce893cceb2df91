package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/webgguf/webgguf/compute"
)

// TestAttentionMatchesFloat64 checks the attention node against a float64
// softmax(q·k·scale)·V on random queries and caches, for GQA groups of 1
// to 4 query heads per KV head (pairs go through attnHead2, an odd head
// through attnHead), head widths with and without a tail past the
// eight-element steps, several rows at a nonzero position and 1 and 2
// threads.
func TestAttentionMatchesFloat64(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	fill := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	for _, tc := range []struct{ nHead, nKV, hd, rows, pos0, threads int }{
		{4, 4, 64, 1, 37, 1}, {4, 2, 64, 1, 37, 1}, {6, 2, 64, 3, 20, 1}, {8, 2, 64, 5, 0, 2},
		{3, 1, 20, 2, 9, 1}, {6, 2, 68, 4, 11, 2},
	} {
		const nCtx = 64
		a := compute.AttnParams{HeadDim: tc.hd, NHead: tc.nHead, NHeadKV: tc.nKV, Scale: float32(1 / math.Sqrt(float64(tc.hd)))}
		kc, vc := fill(tc.nKV*nCtx*tc.hd), fill(tc.nKV*nCtx*tc.hd)
		q := fill(tc.rows * tc.nHead * tc.hd)
		dst := make([]float32, len(q))
		p := &program{b: &Backend{threads: tc.threads}, nCtx: nCtx}
		for range tc.threads {
			p.scores = append(p.scores, make([]float32, 2*nCtx))
		}
		p.attention(dst, q, kc, vc, nCtx, a, tc.pos0, tc.rows, tc.pos0+tc.rows-1)
		group := tc.nHead / tc.nKV
		var worst float64
		for i := range tc.rows {
			n := tc.pos0 + i + 1
			for h := range tc.nHead {
				qh := q[(i*tc.nHead+h)*tc.hd:][:tc.hd]
				kv := (h / group) * nCtx * tc.hd
				s := make([]float64, n)
				mx := math.Inf(-1)
				for j := range n {
					for d := range tc.hd {
						s[j] += float64(qh[d]) * float64(kc[kv+j*tc.hd+d])
					}
					s[j] *= float64(a.Scale)
					mx = math.Max(mx, s[j])
				}
				var sum float64
				for j := range s {
					s[j] = math.Exp(s[j] - mx)
					sum += s[j]
				}
				for d := range tc.hd {
					var want float64
					for j := range n {
						want += s[j] / sum * float64(vc[kv+j*tc.hd+d])
					}
					got := float64(dst[(i*tc.nHead+h)*tc.hd+d])
					worst = max(worst, math.Abs(got-want))
				}
			}
		}
		// Values are O(1): f32 accumulation over ≤ 68 terms and n ≤ 64
		// positions stays far below 1e-5.
		if worst > 1e-5 {
			t.Errorf("%+v: max |Δ| %g against float64", tc, worst)
		}
	}
}
