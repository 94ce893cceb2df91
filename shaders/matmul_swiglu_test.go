package shaders

import (
	"testing"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/shaders/internal/ref"
)

// The SwiGLU matmul (gate and up rows in the two halves of a 128-column
// tile, silu(g)·u in the epilogue) equals the float64 silu(x·Wgᵀ)·(x·Wuᵀ)
// for formats with and without a dq4 (q4_0 in ggml order and packed, q4_K,
// f16, q6_K), M and N off the tile grid, both tiles MatmulTuned picks, and
// a K of several blocks. Tolerance as the SwiGLU matvec's.
func TestMatmulSwiGLU(t *testing.T) {
	r := newRand(t)
	cases := []struct {
		typ    gguf.GGMLType
		packed bool
		k      int
	}{{gguf.TypeQ4_0, false, 224}, {gguf.TypeQ4_0, true, 512}, {gguf.TypeQ4_K, false, 512}, {gguf.TypeF16, false, 100},
		{gguf.TypeQ6_K, false, 256}, {gguf.TypeF32, false, 64}, {gguf.TypeBF16, false, 96}}
	for f16, d := range gpus(t) {
		for _, c := range cases {
			for i, m := range []int{130, 40, 130} {
				M, N, K := m, 150, c.k
				key := MatmulTuned(Key{Op: OpMatmul, Weight: c.typ, F16: f16, Packed: c.packed, SwiGLU: true}, M, 2*N, K)
				if i == 2 {
					// Double-buffered tiles (Key.DB), as the runtime runs block formats.
					key.DB = true
				}
				if i > 0 {
					// vec4 x reads (Key.XVec), as the runtime runs K % 4 == 0.
					key = MatmulXVec(key, K)
				}
				wg, wu := randWeights(t, r, c.typ, N, K), randWeights(t, r, c.typ, N, K)
				gd, err := ref.Dequant(c.typ, wg, N*K)
				if err != nil {
					t.Fatal(err)
				}
				ud, err := ref.Dequant(c.typ, wu, N*K)
				if err != nil {
					t.Fatal(err)
				}
				if c.packed {
					if wg, err = Pack(c.typ, K, wg); err != nil {
						t.Fatal(err)
					}
					if wu, err = Pack(c.typ, K, wu); err != nil {
						t.Fatal(err)
					}
				}
				x := randVec(r, M*K, 0.1, 1)
				params := MatmulParams{M: uint32(M), N: uint32(N), K: uint32(K)}
				binds := [][]byte{wg, f32Bytes(x), poison(4 * M * N), wu}
				if key.XVec && c.typ.BlockSize() == 1 && i == 2 {
					// Both matrices in one binding (Key.OneW), up first,
					// as a model's weights may lie.
					key.OneW = true
					var w []byte
					w, params.Off = oneBinding(c.typ, wu, wg)
					params.Off[0], params.Off[1] = params.Off[1], params.Off[0]
					binds = [][]byte{w, f32Bytes(x), poison(4 * M * N)}
				}
				out := launch(t, d, key, params, Shape{M: M, N: 2 * N}, binds...)
				g, magG := ref.Matmul(gd, ref.Widen(x), M, N, K)
				u, magU := ref.Matmul(ud, ref.Widen(x), M, N, K)
				want, tol := make([]float64, M*N), make([]float64, M*N)
				for i := range want {
					want[i] = ref.SiLU(g[i]) * u[i]
					// silu has slope <= 1.1, so the gate error passes through scaled by |u|.
					tol[i] = matvecRel*(1.1*magG[i]*absf(u[i])+absf(ref.SiLU(g[i]))*magU[i]) + 1e-6
				}
				checkClose(t, key.String(), bytesF32(out[2]), want, tol)
			}
		}
	}
	for _, k := range []Key{
		{Op: OpMatmul, Weight: gguf.TypeQ4_0, SwiGLU: true, TM: 128, TN: 64, TK: 8},
		{Op: OpMatmul, Weight: gguf.TypeQ4_0, SwiGLU: true, TM: 128, TN: 128, TK: 8, SplitK: 2},
		{Op: OpMatmul, Weight: gguf.TypeQ4_0, SwiGLU: true, TM: 128, TN: 128, TK: 6},
		{Op: OpMatmul, Weight: gguf.TypeQ4_0, SwiGLU: true, XVec: true, OneW: true}, // OneW: plain formats only
		{Op: OpMatmul, Weight: gguf.TypeF16, SwiGLU: true, OneW: true},              // and with XVec
		{Op: OpMatmul, Weight: gguf.TypeF16, XVec: true, OneW: true},                // of SwiGLU or QKV
	} {
		if _, err := Build(k); err == nil {
			t.Errorf("%v built", k)
		}
	}
}

// oneBinding lays plain-format matrices out in one buffer as the runtime
// binds them with Key.OneW: each at a vector offset (4 elements of typ),
// after a gap of 0xff bytes (f16 and bf16 NaNs, an f32 NaN) that a wrong
// offset would read; it returns the buffer and the offsets.
func oneBinding(typ gguf.GGMLType, mats ...[]byte) ([]byte, [3]uint32) {
	vec := 4 * typ.TypeSize()
	var w []byte
	var off [3]uint32
	for i, m := range mats {
		gap := make([]byte, (i+1)*3*vec)
		for j := range gap {
			gap[j] = 0xff
		}
		w = append(w, gap...)
		off[i] = uint32(len(w) / vec)
		w = append(w, m...)
	}
	return w, off
}
