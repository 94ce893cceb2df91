package cpu

import (
	"math/rand/v2"
	"testing"

	"github.com/webgguf/webgguf/compute"
)

// BenchmarkAttentionDecode times one decode row of gotiny's attention
// (8 heads of 64, 2 KV heads) at depth 512.
func BenchmarkAttentionDecode(b *testing.B) {
	const nCtx, pos = 1024, 512
	a := compute.AttnParams{HeadDim: 64, NHead: 8, NHeadKV: 2, Scale: 0.125}
	rng := rand.New(rand.NewPCG(13, 14))
	fill := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	kc, vc := fill(a.NHeadKV*nCtx*a.HeadDim), fill(a.NHeadKV*nCtx*a.HeadDim)
	q, dst := fill(a.NHead*a.HeadDim), make([]float32, a.NHead*a.HeadDim)
	p := &program{b: &Backend{threads: 1}, nCtx: nCtx, scores: [][]float32{make([]float32, 2*nCtx)}}
	defer cpuPerOp(b)()
	for range b.N {
		p.attention(dst, q, kc, vc, nCtx, a, pos, 1, pos)
	}
}

// BenchmarkAttentionDecodeWindow times the decode row of
// BenchmarkAttentionDecode at depth 4096 with a sliding window of 512,
// on an ordinary cache and on a ring of 512 slots: both should cost what
// depth 512 costs.
func BenchmarkAttentionDecodeWindow(b *testing.B) {
	const nCtx, pos, window = 4096, 4095, 512
	a := compute.AttnParams{HeadDim: 64, NHead: 8, NHeadKV: 2, Scale: 0.125, Window: window}
	rng := rand.New(rand.NewPCG(13, 14))
	fill := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	for _, slots := range []int{nCtx, window} {
		name := "cache"
		if slots < nCtx {
			name = "ring"
		}
		b.Run(name, func(b *testing.B) {
			kc, vc := fill(a.NHeadKV*slots*a.HeadDim), fill(a.NHeadKV*slots*a.HeadDim)
			q, dst := fill(a.NHead*a.HeadDim), make([]float32, a.NHead*a.HeadDim)
			p := &program{b: &Backend{threads: 1}, scores: [][]float32{make([]float32, 2*slots)}}
			defer cpuPerOp(b)()
			for range b.N {
				p.attention(dst, q, kc, vc, slots, a, pos, 1, pos)
			}
		})
	}
}
