package shaders

import (
	"testing"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/shaders/internal/ref"
)

// normRef returns the float64 RMSNorm of x with weight nw (ggml's
// rms_norm followed by the weight multiply).
func normRef(x, nw []float32, eps float64) []float64 {
	return ref.RMSNorm(ref.Widen(x), ref.Widen(nw), len(x), eps)
}

// Key.Norm: matvec with the RMSNorm of x fused, plain, with bias and
// residual, with SwiGLU and across several staging steps, against the
// float64 RMSNorm followed by the float64 matvec. The plain formats (f32,
// f16, bf16: matvec_plain.wgsl) run their vector path (K 1280, 768) and
// their element-wise path (K 333), with one and several row groups.
func TestMatvecNorm(t *testing.T) {
	r := newRand(t)
	const eps = 1e-5
	for f16, d := range gpus(t) {
		for _, typ := range []gguf.GGMLType{gguf.TypeQ4_0, gguf.TypeQ8_0, gguf.TypeQ4_K, gguf.TypeQ6_K, gguf.TypeIQ4_XS,
			gguf.TypeF16, gguf.TypeF32, gguf.TypeBF16} {
			type shape struct {
				K, wg, rows, rpt int
				epi              string
			}
			cases := []shape{{testK(typ), 0, 0, 0, ""}, {1280, 64, 8, 4, "bias+res"}, {768, 32, 4, 4, "swiglu"}, {testK(typ), 128, 16, 4, ""}}
			if typ.BlockSize() == 1 {
				// The plain formats' tuned shapes (MatvecTuned): SwiGLU, attn_output/ffn_down, lm head.
				cases = append(cases, shape{1280, 32, 2, 2, "swiglu"}, shape{1280, 128, 2, 2, "bias+res"}, shape{1280, 32, 4, 4, ""})
			}
			for _, c := range cases {
				if c.K%typ.BlockSize() != 0 {
					c.K = 5 * 256
				}
				N, K := 37, c.K
				// x far from unit scale, so a missing or doubled norm shows.
				x := randVec(r, K, 0.5, 8)
				nw := randVec(r, K, 0.2, 2)
				xn := normRef(x, nw, eps)
				w := randWeights(t, r, typ, N, K)
				wd, err := ref.Dequant(typ, w, N*K)
				if err != nil {
					t.Fatal(err)
				}
				want, mag := ref.Matvec(wd, xn, N, K)
				key := Key{Op: OpMatvec, Weight: typ, F16: f16, WG: c.wg, Rows: c.rows, RPT: c.rpt, Norm: true}
				bufs := [][]byte{w, f32Bytes(x), poison(4 * N)}
				tol := relTol(mag, matvecRel, 1e-6)
				switch c.epi {
				case "bias+res":
					key.Bias, key.Residual = true, true
					bias, res := randVec(r, N, 0.1, 2), randVec(r, N, 0.1, 2)
					bufs = append(bufs, f32Bytes(bias), f32Bytes(res))
					for i := range want {
						want[i] += float64(bias[i]) + float64(res[i])
						tol[i] += 1e-6
					}
				case "swiglu":
					key.SwiGLU = true
					wu := randWeights(t, r, typ, N, K)
					wud, err := ref.Dequant(typ, wu, N*K)
					if err != nil {
						t.Fatal(err)
					}
					bufs = append(bufs, wu)
					up, magU := ref.Matvec(wud, xn, N, K)
					for i := range want {
						g := want[i]
						want[i] = ref.SiLU(g) * up[i]
						tol[i] = matvecRel*(1.1*mag[i]*absf(up[i])+absf(ref.SiLU(g))*magU[i]) + 1e-6
					}
				}
				bufs = append(bufs, f32Bytes(nw))
				out := launch(t, d, key, MatvecParams{K: uint32(K), N: uint32(N), Eps: eps}, Shape{N: N}, bufs...)
				checkClose(t, name(key.String()), bytesF32(out[2]), want, tol)
			}
		}
	}
}

// The fused QKV matvec with Key.Norm, mixed formats (plain ones included),
// against the float64 RMSNorm and three float64 matvecs.
func TestMatvecQKVNorm(t *testing.T) {
	r := newRand(t)
	const eps = 1e-6
	for f16, d := range gpus(t) {
		for _, c := range []struct {
			q, k, v gguf.GGMLType
			bias    bool
		}{
			{gguf.TypeQ4_K, gguf.TypeQ4_K, gguf.TypeQ6_K, false},
			{gguf.TypeQ8_0, gguf.TypeQ8_0, gguf.TypeQ8_0, true},
			{gguf.TypeF16, gguf.TypeF32, gguf.TypeQ4_0, false},
			// The plain path: every row group reads all of x, group 0's squares count.
			{gguf.TypeF16, gguf.TypeF16, gguf.TypeF16, false},
			{gguf.TypeF32, gguf.TypeF32, gguf.TypeF32, true},
		} {
			K, Nq, Nk, Nv := 1280, 64, 16, 24
			key := Key{Op: OpMatvecQKV, Weight: c.q, WeightK: c.k, WeightV: c.v, F16: f16, Bias: c.bias, Norm: true}
			x := randVec(r, K, 0.5, 8)
			nw := randVec(r, K, 0.2, 2)
			xn := normRef(x, nw, eps)
			types := []gguf.GGMLType{c.q, c.k, c.v}
			ns := []int{Nq, Nk, Nv}
			var ws [][]byte
			var biases [][]float32
			for i, typ := range types {
				ws = append(ws, randWeights(t, r, typ, ns[i], K))
				biases = append(biases, randVec(r, ns[i], 0.1, 2))
			}
			bufs := [][]byte{ws[0], f32Bytes(x), poison(4 * Nq), ws[1], poison(4 * Nk), ws[2], poison(4 * Nv)}
			if c.bias {
				bufs = append(bufs, f32Bytes(biases[0]), f32Bytes(biases[1]), f32Bytes(biases[2]))
			}
			bufs = append(bufs, f32Bytes(nw))
			out := launch(t, d, key, MatvecQKVParams{K: uint32(K), Nq: uint32(Nq), Nk: uint32(Nk), Nv: uint32(Nv), Eps: eps},
				Shape{N: Nq + Nk + Nv}, bufs...)
			for i, oi := range []int{2, 4, 6} {
				wd, err := ref.Dequant(types[i], ws[i], ns[i]*K)
				if err != nil {
					t.Fatal(err)
				}
				want, mag := ref.Matvec(wd, xn, ns[i], K)
				if c.bias {
					for j := range want {
						want[j] += float64(biases[i][j])
						mag[j]++
					}
				}
				checkClose(t, name(key.String(), " matrix ", i), bytesF32(out[oi]), want, relTol(mag, matvecRel, 1e-6))
			}
		}
	}
}
