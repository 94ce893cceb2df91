package shaders

import (
	"math"
	"testing"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/shaders/internal/ref"
)

// Key.MergeX: the matvec's x is attn_decode's split partials (per head and
// split m, l and HeadDim sums), merged while staging — against the float64
// merge (Σ e^(m_s-M)·sums_s / Σ e^(m_s-M)·l_s) followed by the float64
// matvec, with empty splits (m = -3e38, l = 0), split counts below, at and
// past the 8-a-round batching, Gemma 3 1B's heads (4 × 256) and GQA-like
// 8 × 64, block formats packed and not, with the residual epilogue.
func TestMatvecMergeX(t *testing.T) {
	r := newRand(t)
	for f16, d := range gpus(t) {
		for _, c := range []struct {
			typ          gguf.GGMLType
			packed       bool
			H, D, S      int
			wg, rows, rp int
			residual     bool
		}{
			{gguf.TypeQ4_0, false, 4, 256, 16, 0, 0, 0, false},
			{gguf.TypeQ4_0, true, 4, 256, 3, 256, 8, 2, false},
			{gguf.TypeQ8_0, false, 8, 64, 11, 128, 16, 4, true},
			{gguf.TypeQ4_K, false, 2, 128, 32, 0, 0, 0, false},
		} {
			N, K := 37, c.H*c.D
			part := make([]float32, c.H*c.S*(c.D+2))
			merged := make([]float64, K)
			for h := range c.H {
				mx := math.Inf(-1)
				type sp struct {
					m, l float64
					a    []float32
				}
				sps := make([]sp, c.S)
				for s := range c.S {
					b := (h*c.S + s) * (c.D + 2)
					if s%5 == 4 { // an empty split
						part[b], part[b+1] = -3e38, 0
						for i := range c.D {
							part[b+2+i] = 0
						}
						sps[s] = sp{m: -3e38}
						continue
					}
					m := float32(r.NormFloat64() * 3)
					l := float32(0.5 + r.Float64()*4)
					part[b], part[b+1] = m, l
					a := randVec(r, c.D, 0.1, 3)
					copy(part[b+2:], a)
					sps[s] = sp{float64(m), float64(l), a}
					mx = math.Max(mx, float64(m))
				}
				var L float64
				for _, p := range sps {
					if p.a != nil {
						L += math.Exp(p.m-mx) * p.l
					}
				}
				for i := range c.D {
					var v float64
					for _, p := range sps {
						if p.a != nil {
							v += math.Exp(p.m-mx) * float64(p.a[i])
						}
					}
					merged[h*c.D+i] = v / L
				}
			}
			w := randWeights(t, r, c.typ, N, K)
			wd, err := ref.Dequant(c.typ, w, N*K)
			if err != nil {
				t.Fatal(err)
			}
			want, mag := ref.Matvec(wd, merged, N, K)
			tol := relTol(mag, matvecRel, 1e-6)
			wb := w
			if c.packed {
				if wb, err = Pack(c.typ, K, w); err != nil {
					t.Fatal(err)
				}
			}
			key := Key{Op: OpMatvec, Weight: c.typ, F16: f16, WG: c.wg, Rows: c.rows, RPT: c.rp, MergeX: true, HeadDim: c.D, Packed: c.packed}
			bufs := [][]byte{wb, f32Bytes(part), poison(4 * N)}
			if c.residual {
				key.Residual = true
				res := randVec(r, N, 0.1, 2)
				bufs = append(bufs, f32Bytes(res))
				for i := range want {
					want[i] += float64(res[i])
					tol[i] += 1e-6
				}
			}
			out := launch(t, d, key, MatvecParams{K: uint32(K), N: uint32(N), Splits: uint32(c.S)}, Shape{N: N}, bufs...)
			checkClose(t, name(key.String(), " S=", c.S), bytesF32(out[2]), want, tol)
		}
	}
}

// MergeX needs matvec_q's staging and a head size: other keys are errors.
func TestMatvecMergeXKey(t *testing.T) {
	for _, k := range []Key{
		{Op: OpMatvec, Weight: gguf.TypeF16, MergeX: true, HeadDim: 64},                // plain
		{Op: OpMatvec, Weight: gguf.TypeQ4_0, MergeX: true},                            // no head size
		{Op: OpMatvec, Weight: gguf.TypeQ4_0, MergeX: true, HeadDim: 64, Norm: true},   // with a norm
		{Op: OpMatvec, Weight: gguf.TypeQ4_0, MergeX: true, HeadDim: 64, SwiGLU: true}, // gated
	} {
		if _, err := Build(k); err == nil {
			t.Errorf("%v: built, want a KeyError", k)
		}
	}
}
