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
		{Op: OpMatvec, Weight: gguf.TypeQ4_0, PostAdd: true},                            // no Norm
		{Op: OpMatvec, Weight: gguf.TypeF16, PostAdd: true, Norm: true},                 // plain
		{Op: OpMatvec, Weight: gguf.TypeQ4_0, PostAdd: true, Norm: true, Persist: 8},    // persistent
		{Op: OpMatvec, Weight: gguf.TypeQ4_0, PostAdd: true, Norm: true, Interleave: 8}, // interleaved
	} {
		if _, err := Build(k); err == nil {
			t.Errorf("%v: built, want a KeyError on PostAdd", k)
		}
	}
}
