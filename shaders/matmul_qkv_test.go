package shaders

import (
	"testing"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/shaders/internal/ref"
)

// The QKV matmul (Key.QKV: three matrices of one format as the Nq + Nk + Nv
// rows of one product) equals the float64 x·Wqᵀ, x·Wkᵀ, x·Wvᵀ (+ their
// biases), unsplit (three outputs written by the epilogue) and split (the
// partials scattered by split_sum with Key.QKV), for formats with and
// without a dq4 (q4_0 and q8_0 in ggml order and packed, q4_K, f16 with an
// odd K, q6_K), M off the tile grid, K ending mid-step, and Nq / Nk both on
// and off the tile boundaries (a tile then reads two matrices).
func TestMatmulQKV(t *testing.T) {
	r := newRand(t)
	type qkvCase struct {
		typ    gguf.GGMLType
		packed bool
		k      int
		tk, tv gguf.GGMLType // K and V formats when they differ from Q's (Key.WeightK/WeightV)
	}
	cases := []qkvCase{{gguf.TypeQ4_0, false, 224, 0, 0}, {gguf.TypeQ4_0, true, 512, 0, 0}, {gguf.TypeQ8_0, true, 256, 0, 0}, {gguf.TypeQ8_0, false, 160, 0, 0},
		{gguf.TypeQ4_K, false, 512, 0, 0}, {gguf.TypeF16, false, 101, 0, 0}, {gguf.TypeQ6_K, false, 256, 0, 0},
		// Plain formats with K % 4 == 0: with XVec their rows are read a
		// 4-element vector a load (tmplData.WLoad).
		{gguf.TypeF16, false, 100, 0, 0}, {gguf.TypeBF16, false, 96, 0, 0},
		// Mixed formats: Llama Q4_K_M's attn_v in q6_K (packed and in file
		// order), a scale-cached format beside uncached ones, and K ending
		// mid-step (the element-wise tail of each matrix's reads).
		// Packed: K such that every matrix with a packed layout is packed
		// (PackedAgree, as the runtime requires).
		{gguf.TypeQ4_K, true, 2048, gguf.TypeQ4_K, gguf.TypeQ6_K}, {gguf.TypeQ4_K, false, 256, gguf.TypeQ4_K, gguf.TypeQ6_K},
		{gguf.TypeQ5_1, true, 512, gguf.TypeQ8_0, gguf.TypeQ4_0}, {gguf.TypeQ8_0, false, 160, gguf.TypeQ4_1, gguf.TypeIQ4_NL}}
	shapes := []struct {
		m, nq, nk, nv int
		tm, tn, tk    int
		splits        int
		bias          bool
	}{
		{130, 256, 128, 128, 128, 128, 8, 0, true}, // tiles on the matrix boundaries
		{130, 96, 40, 40, 64, 64, 16, 0, false},    // tiles straddle Nq and Nq + Nk
		{70, 128, 64, 72, 128, 64, 16, 3, true},    // split, uneven slices
		{40, 200, 56, 48, 64, 64, 12, 2, false},    // split, K step 12
		{130, 256, 128, 128, 128, 128, 8, 5, true}, // split, more slices than steps for short K
		{33, 64, 64, 64, 64, 64, 16, 0, true},      // one row tile
	}
	for f16, d := range gpus(t) {
		for ci, c := range cases {
			for si, s := range shapes {
				M, K := s.m, c.k
				N := s.nq + s.nk + s.nv
				ns := []int{s.nq, s.nk, s.nv}
				var ws, wraw [3][]byte
				var wd [3][]float64
				var bs [3][]float32
				types := [3]gguf.GGMLType{c.typ, c.typ, c.typ}
				if c.tk != 0 {
					types[1], types[2] = c.tk, c.tv
				}
				for i, n := range ns {
					wraw[i] = randWeights(t, r, types[i], n, K)
					var err error
					if wd[i], err = ref.Dequant(types[i], wraw[i], n*K); err != nil {
						t.Fatal(err)
					}
					ws[i] = wraw[i]
					if c.packed && !PackedAgree(K, types[:]...) {
						t.Fatalf("case %v: K = %d packs some matrices and not others", c, K)
					}
					if c.packed && Packable(types[i], K) {
						if ws[i], err = Pack(types[i], K, wraw[i]); err != nil {
							t.Fatal(err)
						}
					}
					bs[i] = make([]float32, n)
					if s.bias {
						bs[i] = randVec(r, n, 0.1, 2)
					}
				}
				x := randVec(r, M*K, 0.1, 1)
				key := Key{Op: OpMatmul, Weight: c.typ, WeightK: c.tk, WeightV: c.tv, F16: f16, Packed: c.packed, QKV: true, Bias: s.bias,
					TM: s.tm, TN: s.tn, TK: s.tk, SplitK: s.splits}
				// Double-buffered tiles (Key.DB) where they fit, on every other shape.
				key.DB = si%2 == 1 && (s.tm+s.tn)*s.tk*8 <= 16384
				// vec4 x reads (Key.XVec) as the runtime sets them, on alternate cases.
				if (ci+si)%2 == 0 {
					key = MatmulXVec(key, K)
				}
				stride := M*N + 7 // slices need not be packed
				y := poison(4 * M * s.nq)
				if s.splits > 0 {
					y = poison(4 * stride * s.splits)
				}
				// All three in one binding (Key.OneW), in the order K, V,
				// Q, on two of three shapes of the plain vec4 keys.
				var off [3]uint32
				key.OneW = key.XVec && c.typ.BlockSize() == 1 && si%3 != 2
				w := ws[0]
				if key.OneW {
					var o [3]uint32
					w, o = oneBinding(c.typ, ws[1], ws[2], ws[0])
					off = [3]uint32{o[2], o[0], o[1]}
				}
				binds := [][]byte{w, f32Bytes(x), y}
				if s.bias {
					binds = append(binds, f32Bytes(bs[0]))
				}
				if !key.OneW {
					binds = append(binds, ws[1], ws[2])
				}
				if s.bias {
					binds = append(binds, f32Bytes(bs[1]), f32Bytes(bs[2]))
				}
				if s.splits == 0 {
					binds = append(binds, poison(4*M*s.nk), poison(4*M*s.nv))
				}
				mp := MatmulParams{M: uint32(M), N: uint32(N), K: uint32(K), Stride: uint32(stride), Nq: uint32(s.nq), Nk: uint32(s.nk), Off: off}
				out := launch(t, d, key, mp, Shape{M: M, N: N}, binds...)
				var got [3][]byte
				if s.splits == 0 {
					got = [3][]byte{out[2], out[len(out)-2], out[len(out)-1]}
				} else {
					sum := Key{Op: OpSplitSum, SplitK: s.splits, QKV: true}
					so := launch(t, d, sum, SplitSumParams{N: uint32(M * N), Stride: uint32(stride), Cols: uint32(N), Nq: uint32(s.nq), Nk: uint32(s.nk)},
						Shape{N: M * N}, out[2], poison(4*M*s.nq), poison(4*M*s.nk), poison(4*M*s.nv))
					got = [3][]byte{so[1], so[2], so[3]}
				}
				for i, n := range ns {
					want, mag := ref.Matmul(wd[i], ref.Widen(x), M, n, K)
					for j := range want {
						want[j] += float64(bs[i][j%n])
						mag[j] += 2
					}
					checkClose(t, name(key.String(), " matrix ", i), bytesF32(got[i]), want, relTol(mag, matvecRel, 1e-6))
				}
			}
		}
	}
	for _, k := range []Key{
		{Op: OpMatmul, Weight: gguf.TypeQ4_0, QKV: true, TM: 128, TN: 128, TK: 6},
		{Op: OpMatmul, Weight: gguf.TypeQ4_0, QKV: true, Residual: true},
		{Op: OpMatmul, Weight: gguf.TypeQ4_0, QKV: true, SwiGLU: true},
		{Op: OpMatmul, Weight: gguf.TypeQ4_K, WeightK: gguf.TypeQ4_K, WeightV: gguf.TypeF16, QKV: true}, // mixed: block formats only
	} {
		if _, err := Build(k); err == nil {
			t.Errorf("%v built", k)
		}
	}
}
