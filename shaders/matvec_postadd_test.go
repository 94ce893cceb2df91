package shaders

import (
	"testing"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/shaders/internal/ref"
)

// Key.PostAdd on matvec: x is y of a post-norm residual add, the kernel
// computes h = r + RMSNorm(y)·pw as it stages x, stores h, and multiplies
// its own RMSNorm of h (Key.Norm) — against the float64 chain: the post
// norm, the add, the pre-norm, the matvec (GeGLU and SiLU gated, and
// plain). Block formats, packed ones too; one staging round and several
// (K 2560 with 64-unit rounds), the tuned Gemma shape (256 threads, 16
// rows, RPT 2) and the default one.
func TestMatvecPostAdd(t *testing.T) {
	r := newRand(t)
	const eps, epsPost = 1e-6, 1e-5
	for f16, d := range gpus(t) {
		for _, c := range []struct {
			typ              gguf.GGMLType
			packed           bool
			K, wg, rows, rpt int
			glu              bool
			act              Act
		}{
			{gguf.TypeQ4_0, false, 1152, 256, 16, 2, true, ActGELU},
			{gguf.TypeQ4_0, true, 2048, 256, 16, 2, true, ActGELU},
			{gguf.TypeQ8_0, true, 2560, 0, 0, 0, true, ActSiLU},
			{gguf.TypeQ8_0, false, 2560, 128, 16, 2, false, ActSiLU},
			{gguf.TypeQ4_K, false, 1280, 0, 0, 0, true, ActGELU},
		} {
			N, K := 37, c.K
			y := randVec(r, K, 0.5, 8)
			res := randVec(r, K, 0.1, 3)
			pw := randVec(r, K, 0.2, 2)
			nw := randVec(r, K, 0.2, 2)
			yn := normRef(y, pw, epsPost)
			h := make([]float64, K)
			for i := range h {
				h[i] = float64(res[i]) + yn[i]
			}
			xn := ref.RMSNorm(h, ref.Widen(nw), K, eps)
			w := randWeights(t, r, c.typ, N, K)
			wd, err := ref.Dequant(c.typ, w, N*K)
			if err != nil {
				t.Fatal(err)
			}
			want, mag := ref.Matvec(wd, xn, N, K)
			tol := relTol(mag, matvecRel, 1e-6)
			key := Key{Op: OpMatvec, Weight: c.typ, F16: f16, WG: c.wg, Rows: c.rows, RPT: c.rpt, Norm: true, PostAdd: true, Packed: c.packed}
			pack := func(b []byte) []byte {
				if !c.packed {
					return b
				}
				p, err := Pack(c.typ, K, b)
				if err != nil {
					t.Fatal(err)
				}
				return p
			}
			bufs := [][]byte{pack(w), f32Bytes(y), poison(4 * N)}
			if c.glu {
				key.SwiGLU, key.Act = true, c.act
				wu := randWeights(t, r, c.typ, N, K)
				wud, err := ref.Dequant(c.typ, wu, N*K)
				if err != nil {
					t.Fatal(err)
				}
				bufs = append(bufs, pack(wu))
				up, magU := ref.Matvec(wud, xn, N, K)
				for i := range want {
					g := want[i]
					a := ref.SiLU(g)
					if c.act == ActGELU {
						a = ref.GELU(g)
					}
					want[i] = a * up[i]
					tol[i] = matvecRel*(1.1*mag[i]*absf(up[i])+absf(a)*magU[i]) + 1e-6
				}
			}
			bufs = append(bufs, f32Bytes(nw), f32Bytes(res), f32Bytes(pw), poison(4*K))
			out := launch(t, d, key, MatvecParams{K: uint32(K), N: uint32(N), Eps: eps, EpsPost: epsPost}, Shape{N: N}, bufs...)
			checkClose(t, name(key.String(), " K=", K, " y"), bytesF32(out[2]), want, tol)
			checkClose(t, name(key.String(), " K=", K, " h"), bytesF32(out[len(out)-1]), h, relTol(absAll(h), 1e-6, 1e-6))
		}
	}
}

// PostAdd needs the Norm and a block format's staging: other keys are
// typed errors naming it.
func TestMatvecPostAddKey(t *testing.T) {
	for _, k := range []Key{
		{Op: OpMatvec, Weight: gguf.TypeQ4_0, PostAdd: true},            // no Norm
		{Op: OpMatvec, Weight: gguf.TypeF16, PostAdd: true, Norm: true}, // plain
	} {
		if _, err := Build(k); err == nil {
			t.Errorf("%v: built, want a KeyError on PostAdd", k)
		}
	}
}

// Key.PostAdd on the fused QKV matvec (the previous layer's post-FFN norm
// add computed while staging x, Gemma): the three outputs against float64
// matvecs of RMSNorm(r + RMSNorm(y)·pw)·nw, and the stored h. Gemma 3 1B's
// shapes (K 1152, 4 query heads of 256, one KV head; packed, ragged rows,
// and not), a packed one of whole chunks (K 2048) and a smaller one with
// biases; block formats, packed ones too, the tuned shape and the default.
func TestMatvecQKVPostAdd(t *testing.T) {
	r := newRand(t)
	const eps, epsPost = 1e-6, 1e-5
	for f16, d := range gpus(t) {
		for _, c := range []struct {
			q, k, v           gguf.GGMLType
			packed, bias      bool
			K, Nq, Nk, Nv     int
			wg, rows, rpt, xu int
		}{
			{gguf.TypeQ4_0, gguf.TypeQ4_0, gguf.TypeQ4_0, false, false, 1152, 1024, 256, 256, 256, 8, 2, 0},
			{gguf.TypeQ8_0, gguf.TypeQ8_0, gguf.TypeQ8_0, true, false, 2048, 512, 128, 128, 128, 16, 2, 64},
			{gguf.TypeQ8_0, gguf.TypeQ8_0, gguf.TypeQ8_0, true, false, 1152, 1024, 256, 256, 0, 0, 0, 0},
			{gguf.TypeQ4_K, gguf.TypeQ4_K, gguf.TypeQ6_K, false, true, 2560, 64, 16, 24, 0, 0, 0, 0},
		} {
			K, Nq, Nk, Nv := c.K, c.Nq, c.Nk, c.Nv
			key := Key{Op: OpMatvecQKV, Weight: c.q, WeightK: c.k, WeightV: c.v, F16: f16, Bias: c.bias, Norm: true, PostAdd: true,
				Packed: c.packed, Ragged: c.packed && Ragged(c.q, K), WG: c.wg, Rows: c.rows, RPT: c.rpt, XU: c.xu}
			y := randVec(r, K, 0.5, 8)
			res := randVec(r, K, 0.1, 3)
			pw := randVec(r, K, 0.2, 2)
			nw := randVec(r, K, 0.2, 2)
			yn := normRef(y, pw, epsPost)
			h := make([]float64, K)
			for i := range h {
				h[i] = float64(res[i]) + yn[i]
			}
			xn := ref.RMSNorm(h, ref.Widen(nw), K, eps)
			types := []gguf.GGMLType{c.q, c.k, c.v}
			ns := []int{Nq, Nk, Nv}
			var ws, bound [][]byte
			var biases [][]float32
			for i, typ := range types {
				w := randWeights(t, r, typ, ns[i], K)
				ws = append(ws, w)
				if c.packed {
					p, err := Pack(typ, K, w)
					if err != nil {
						t.Fatal(err)
					}
					w = p
				}
				bound = append(bound, w)
				biases = append(biases, randVec(r, ns[i], 0.1, 2))
			}
			bufs := [][]byte{bound[0], f32Bytes(y), poison(4 * Nq), bound[1], poison(4 * Nk), bound[2], poison(4 * Nv)}
			if c.bias {
				bufs = append(bufs, f32Bytes(biases[0]), f32Bytes(biases[1]), f32Bytes(biases[2]))
			}
			bufs = append(bufs, f32Bytes(nw), f32Bytes(res), f32Bytes(pw), poison(4*K))
			out := launch(t, d, key, MatvecQKVParams{K: uint32(K), Nq: uint32(Nq), Nk: uint32(Nk), Nv: uint32(Nv), Eps: eps, EpsPost: epsPost},
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
			checkClose(t, name(key.String(), " h"), bytesF32(out[len(out)-1]), h, relTol(absAll(h), 1e-6, 1e-6))
		}
	}
}

// PostAdd on the QKV matvec needs the Norm and the block formats' staging.
func TestMatvecQKVPostAddKey(t *testing.T) {
	for _, k := range []Key{
		{Op: OpMatvecQKV, Weight: gguf.TypeQ4_0, WeightK: gguf.TypeQ4_0, WeightV: gguf.TypeQ4_0, PostAdd: true},                      // no Norm
		{Op: OpMatvecQKV, Weight: gguf.TypeF16, WeightK: gguf.TypeF16, WeightV: gguf.TypeF16, PostAdd: true, Norm: true},             // plain
		{Op: OpMatvecQKV, Weight: gguf.TypeF32, WeightK: gguf.TypeF32, WeightV: gguf.TypeF32, PostAdd: true, Norm: true, Bias: true}, // plain
	} {
		if _, err := Build(k); err == nil {
			t.Errorf("%v: built, want a KeyError on PostAdd", k)
		}
	}
}
