package shaders

import (
	"testing"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/shaders/internal/ref"
)

// Key.Persist: a grid smaller than the row blocks, so every workgroup loops
// over several blocks (the last one partial: N is no multiple of Rows), with
// x staged once (K <= 32·XU) and restaged per block in rounds (K > 32·XU),
// plain, with bias and residual, with the fused norm and with SwiGLU,
// ggml-order and packed weights, against the float64 reference.
func TestMatvecPersist(t *testing.T) {
	r := newRand(t)
	const eps = 1e-5
	for f16, d := range gpus(t) {
		for _, c := range []struct {
			typ                gguf.GGMLType
			K                  int
			packed             bool
			wg, rows, rpt, xu  int
			persist            int
			norm, swiglu, bres bool
		}{
			{gguf.TypeQ4_0, 2048, true, 128, 32, 4, 64, 3, false, false, false},   // the lm head's shape: x staged once
			{gguf.TypeQ4_0, 2048, true, 128, 32, 4, 16, 2, true, false, false},    // rounds (64 units, XU 16) with the norm
			{gguf.TypeQ8_0, 1280, true, 64, 8, 2, 64, 4, false, true, false},      // 40 units in one partial round, SwiGLU
			{gguf.TypeQ4_K, 768, false, 128, 16, 2, 32, 2, true, false, true},     // once, norm, bias and residual
			{gguf.TypeQ6_K, 768, false, 32, 16, 2, 8, 5, false, false, false},     // rounds of 8 units, T = 4
			{gguf.TypeQ5_1, 7 * 32, false, 64, 16, 4, 16, 100, true, true, false}, // grid larger than the blocks: one each
		} {
			N, K := 101, c.K
			raw := randWeights(t, r, c.typ, N, K)
			wd, err := ref.Dequant(c.typ, raw, N*K)
			if err != nil {
				t.Fatal(err)
			}
			w := raw
			if c.packed {
				w = gpuPack(t, f16, c.typ, N, K, raw)
			}
			x := randVec(r, K, 0.5, 2)
			nw := randVec(r, K, 0.2, 2)
			xr := ref.Widen(x)
			if c.norm {
				xr = normRef(x, nw, eps)
			}
			want, mag := ref.Matvec(wd, xr, N, K)
			tol := relTol(mag, matvecRel, 1e-6)
			key := Key{Op: OpMatvec, Weight: c.typ, F16: f16, WG: c.wg, Rows: c.rows, RPT: c.rpt, XU: c.xu,
				Persist: c.persist, Packed: c.packed, Norm: c.norm, SwiGLU: c.swiglu, Bias: c.bres, Residual: c.bres}
			bufs := [][]byte{w, f32Bytes(x), poison(4 * N)}
			if c.swiglu {
				rawU := randWeights(t, r, c.typ, N, K)
				wud, err := ref.Dequant(c.typ, rawU, N*K)
				if err != nil {
					t.Fatal(err)
				}
				wu := rawU
				if c.packed {
					wu = gpuPack(t, f16, c.typ, N, K, rawU)
				}
				bufs = append(bufs, wu)
				up, magU := ref.Matvec(wud, xr, N, K)
				for i := range want {
					g := want[i]
					want[i] = ref.SiLU(g) * up[i]
					tol[i] = 2*matvecRel*(1.1*mag[i]*absf(up[i])+absf(ref.SiLU(g))*magU[i]) + 1e-6
				}
			}
			if c.bres {
				bias, res := randVec(r, N, 0.1, 2), randVec(r, N, 0.1, 2)
				bufs = append(bufs, f32Bytes(bias), f32Bytes(res))
				for i := range want {
					want[i] += float64(bias[i]) + float64(res[i])
					tol[i] += 1e-6
				}
			}
			if c.norm {
				bufs = append(bufs, f32Bytes(nw))
			}
			k, err := Build(key)
			if err != nil {
				t.Fatal(err)
			}
			if gx, _, _ := k.Dispatch(Shape{N: N}); int(gx) != min(c.persist, (N+c.rows-1)/c.rows) {
				t.Fatalf("%s: grid %d workgroups, want %d", key, gx, min(c.persist, (N+c.rows-1)/c.rows))
			}
			out := launch(t, d, key, MatvecParams{K: uint32(K), N: uint32(N), Eps: eps}, Shape{N: N}, bufs...)
			checkClose(t, key.String(), bytesF32(out[2]), want, tol)
		}
	}
}

// Build rejects Persist where it has no kernel: plain formats and StageW.
func TestMatvecPersistKeys(t *testing.T) {
	for _, key := range []Key{
		{Op: OpMatvec, Weight: gguf.TypeF16, Persist: 8},
		{Op: OpMatvec, Weight: gguf.TypeQ4_0, StageW: true, Persist: 8},
		{Op: OpMatvec, Weight: gguf.TypeQ4_0, Persist: -1},
	} {
		if _, err := Build(key); err == nil {
			t.Errorf("%s: Build succeeded, want a KeyError", key)
		}
	}
}
