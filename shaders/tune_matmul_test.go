package shaders

import (
	"testing"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/shaders/internal/ref"
)

// Every tile MatmulTuned picks computes the float64 reference's product:
// shapes chosen so that each of its three tiles is selected, M and N off
// the tile grid, tolerance as TestMatmulAllFormats.
func TestMatmulTunedTiles(t *testing.T) {
	r := newRand(t)
	cases := []struct{ m, n, tm, tn int }{
		{512, 8192, 128, 128},
		{257, 4097, 128, 64},
		{130, 150, 64, 64},
		{33, 4000, 64, 64},
	}
	for f16, d := range gpus(t) {
		for _, typ := range []gguf.GGMLType{gguf.TypeQ4_0, gguf.TypeQ4_K, gguf.TypeF16} {
			for _, c := range cases {
				// K 0: the tile alone, unsplit, as the compiler asks for unsplit matmuls.
				key := MatmulTuned(Key{Op: OpMatmul, Weight: typ, F16: f16}, c.m, c.n, 0)
				if key.TM != c.tm || key.TN != c.tn {
					t.Fatalf("MatmulTuned(%d, %d) = tile %dx%d, want %dx%d", c.m, c.n, key.TM, key.TN, c.tm, c.tn)
				}
				M, N, K := c.m-1, c.n-3, 256
				w := randWeights(t, r, typ, N, K)
				x := randVec(r, M*K, 0.1, 1)
				out := launch(t, d, key, MatmulParams{M: uint32(M), N: uint32(N), K: uint32(K)}, Shape{M: M, N: N},
					w, f32Bytes(x), poison(4*M*N))
				wd, err := ref.Dequant(typ, w, N*K)
				if err != nil {
					t.Fatal(err)
				}
				want, mag := ref.Matmul(wd, ref.Widen(x), M, N, K)
				checkClose(t, key.String(), bytesF32(out[2]), want, relTol(mag, matvecRel, 1e-6))
			}
		}
	}
	if k := (Key{Op: OpMatmul, TM: 64, TN: 64, TK: 8}); MatmulTuned(k, 512, 8192, 2048) != k {
		t.Errorf("MatmulTuned changed a key that sets its tile")
	}
	// Llama-3.2-1B's prefill shapes (M = 512): ffn_down (K = 8192, N =
	// 2048) and attn_q/output (K = N = 2048) are split four ways over
	// 128x128 tiles, attn_k/v (N = 512) four ways over 64x64; ffn_gate/up
	// fill the GPU unsplit. Qwen2.5-0.5B's (K = 896 but ffn_down's 4864):
	// ffn_down 128x128 in 9 slices (10 would start a second wave),
	// attn_q/output 64x64 in 3, attn_k/v (N = 128) 64x64 in 7, ffn_gate/up
	// 128x64 unsplit. A K of 768 splits a 128x64 tile in 2; 128 is too
	// short to split. Splits stop at 16 (maxSplit).
	for _, c := range []struct{ n, k, tm, tn, splits int }{
		{2048, 8192, 128, 128, 4}, {8192, 2048, 128, 128, 0}, {2048, 2048, 128, 128, 4}, {512, 2048, 64, 64, 4},
		{896, 4864, 128, 128, 9}, {896, 896, 64, 64, 3}, {128, 896, 64, 64, 7}, {4864, 896, 128, 64, 0},
		{2048, 768, 128, 64, 2}, {2048, 128, 128, 64, 0}, {64, 8192, 64, 64, 16},
	} {
		got := MatmulTuned(Key{Op: OpMatmul, Weight: gguf.TypeQ4_0, Residual: true}, 512, c.n, c.k)
		if got.TM != c.tm || got.TN != c.tn || got.SplitK != c.splits {
			t.Errorf("MatmulTuned(512, N=%d, K=%d) = %dx%d split %d, want %dx%d split %d", c.n, c.k, got.TM, got.TN, got.SplitK, c.tm, c.tn, c.splits)
		}
	}
	// The QKV matmul (N = Nq + Nk + Nv): Llama-1B's 3072×2048 128x128 in 5
	// slices (480 workgroups: 91% of a second wave of wave128), Qwen2.5-0.5B's
	// 1152×896 64x64 in 4; 64 rows take 64x64 unsplit. Llama-3-8B's
	// 6144×4096 (192 tiles) takes 4 (97% of three waves; 2 and 3 fill 73%),
	// a 6144×512 reduction the 2 its slices allow (no split fills 85%), and
	// 6144×256 none.
	for _, c := range []struct{ m, n, k, tm, tn, splits int }{
		{512, 3072, 2048, 128, 128, 5}, {512, 1152, 896, 64, 64, 4}, {64, 3072, 2048, 64, 64, 0}, {512, 384, 128, 64, 64, 0},
		{512, 6144, 4096, 128, 128, 4}, {512, 6144, 512, 128, 128, 2}, {512, 6144, 256, 128, 128, 0},
	} {
		got := MatmulTuned(Key{Op: OpMatmul, Weight: gguf.TypeQ4_0, QKV: true, Bias: true}, c.m, c.n, c.k)
		if got.TM != c.tm || got.TN != c.tn || got.SplitK != c.splits {
			t.Errorf("MatmulTuned(QKV, %d, N=%d, K=%d) = %dx%d split %d, want %dx%d split %d", c.m, c.n, c.k, got.TM, got.TN, got.SplitK, c.tm, c.tn, c.splits)
		}
	}
	if got := MatmulTuned(Key{Op: OpMatmul, Weight: gguf.TypeQ4_0, Bias: true}, 512, 2048, 8192); got.SplitK != 4 {
		t.Errorf("a biased matmul was not split like an unbiased one: %+v", got)
	}
}

// A split-K matmul (slices of K in grid z, residual and bias added by
// slice 0) followed by split_sum equals the float64 product plus the
// residual (and bias), for even and uneven slice counts, more slices than K
// has steps for (empty last slices), and the tiles MatmulTuned uses.
func TestMatmulSplitK(t *testing.T) {
	r := newRand(t)
	for f16, d := range gpus(t) {
		for _, typ := range []gguf.GGMLType{gguf.TypeQ4_0, gguf.TypeQ4_K, gguf.TypeF16} {
			for _, c := range []struct {
				splits, tm, tn, tk, k int
				bias                  bool
			}{{2, 128, 128, 8, 1280, false}, {3, 128, 64, 16, 1280, true}, {4, 64, 64, 16, 1280, false}, {12, 64, 64, 16, 512, true}} {
				M, N, K := 130, 150, c.k
				w := randWeights(t, r, typ, N, K)
				x := randVec(r, M*K, 0.1, 1)
				res := randVec(r, M*N, 0.1, 2)
				stride := M*N + 5 // slices need not be packed
				key := Key{Op: OpMatmul, Weight: typ, F16: f16, Bias: c.bias, Residual: true, TM: c.tm, TN: c.tn, TK: c.tk, SplitK: c.splits}
				binds := [][]byte{w, f32Bytes(x), poison(4 * stride * c.splits)}
				bias := make([]float32, N)
				if c.bias {
					bias = randVec(r, N, 0.1, 2)
					binds = append(binds, f32Bytes(bias))
				}
				parts := launch(t, d, key, MatmulParams{M: uint32(M), N: uint32(N), K: uint32(K), Stride: uint32(stride)},
					Shape{M: M, N: N}, append(binds, f32Bytes(res))...)
				sum := Key{Op: OpSplitSum, SplitK: c.splits}
				out := launch(t, d, sum, SplitSumParams{N: uint32(M * N), Stride: uint32(stride)}, Shape{N: M * N},
					parts[2], poison(4*M*N))
				wd, err := ref.Dequant(typ, w, N*K)
				if err != nil {
					t.Fatal(err)
				}
				want, mag := ref.Matmul(wd, ref.Widen(x), M, N, K)
				for i := range want {
					want[i] += float64(res[i]) + float64(bias[i%N])
					mag[i] += 2
				}
				checkClose(t, key.String(), bytesF32(out[1]), want, relTol(mag, matvecRel, 1e-6))
			}
		}
	}
}

// Both staging paths of the matmul (4 k per thread through dq4 when TK %
// 4 == 0, one element per thread otherwise) equal the float64 product, for
// the formats with their own dq4 (packed q4_0/q8_0, q4_K, f16 with odd K),
// one without (q6_K) and a K that ends mid-step.
func TestMatmulStagingWidths(t *testing.T) {
	r := newRand(t)
	cases := []struct {
		typ    gguf.GGMLType
		packed bool
		k      int
	}{{gguf.TypeQ4_0, true, 512}, {gguf.TypeQ8_0, true, 512}, {gguf.TypeQ4_0, false, 96}, {gguf.TypeQ4_K, false, 512},
		{gguf.TypeQ6_K, false, 256}, {gguf.TypeF16, false, 77}, {gguf.TypeF32, false, 50}}
	for f16, d := range gpus(t) {
		for _, c := range cases {
			for _, tk := range []int{4, 6, 12} {
				M, N, K := 70, 66, c.k
				w, wd := randMatrix(t, r, c.typ, c.packed, N, K)
				x := randVec(r, M*K, 0.1, 1)
				key := Key{Op: OpMatmul, Weight: c.typ, F16: f16, Packed: c.packed, TM: 64, TN: 64, TK: tk}
				out := launch(t, d, key, MatmulParams{M: uint32(M), N: uint32(N), K: uint32(K)}, Shape{M: M, N: N},
					w, f32Bytes(x), poison(4*M*N))
				want, mag := ref.Matmul(wd, ref.Widen(x), M, N, K)
				checkClose(t, key.String(), bytesF32(out[2]), want, relTol(mag, matvecRel, 1e-6))
			}
		}
	}
}

// MatmulDB double-buffers the tiles that fit (halving TK where both
// buffers would not), plain formats too, leaves other ops and TK that is
// not a multiple of 4 alone, and every key it returns builds.
func TestMatmulDB(t *testing.T) {
	for _, c := range []struct {
		in     Key
		tk     int
		db     bool
		reason string
	}{
		{Key{Op: OpMatmul, Weight: gguf.TypeQ4_0, TM: 128, TN: 128, TK: 8}, 8, true, "fits as is"},
		{Key{Op: OpMatmul, Weight: gguf.TypeQ4_K, TM: 128, TN: 64, TK: 16}, 8, true, "TK halved"},
		{Key{Op: OpMatmul, Weight: gguf.TypeQ8_0, TM: 64, TN: 64, TK: 16}, 16, true, "fits as is"},
		{Key{Op: OpMatmul, Weight: gguf.TypeQ6_K}, 8, true, "default tile"},
		{Key{Op: OpMatmul, Weight: gguf.TypeF16, TM: 128, TN: 128, TK: 8}, 8, true, "plain format"},
		{Key{Op: OpMatmul, Weight: gguf.TypeQ4_0, TM: 128, TN: 128, TK: 12}, 12, false, "TK 12 is not halved to a multiple of 4"},
		{Key{Op: OpMatmul, Weight: gguf.TypeQ4_0, TM: 64, TN: 64, TK: 6}, 6, false, "TK not a multiple of 4"},
		{Key{Op: OpMatvec, Weight: gguf.TypeQ4_0}, 0, false, "not a matmul"},
	} {
		got := MatmulDB(c.in)
		if got.DB != c.db || got.TK != c.tk {
			t.Errorf("%s: MatmulDB(%v) = TK %d DB %v, want TK %d DB %v", c.reason, c.in, got.TK, got.DB, c.tk, c.db)
		}
		if got.DB {
			if _, err := Build(got); err != nil {
				t.Errorf("%s: %v", c.reason, err)
			}
		}
	}
}

// The matmul with vec4 x reads (Key.XVec) equals the float64 x·Wᵀ for every
// weight format, with K a multiple of 4 but not of the tile's TK (the last
// step's slots past kEnd read nothing), M and N off the tile grid, split
// in uneven slices and with the bias/residual epilogue; the keys it must
// refuse are refused and MatmulXVec leaves the K it cannot serve alone.
// Tolerance as TestMatmulAllFormats.
func TestMatmulXVec(t *testing.T) {
	r := newRand(t)
	for f16, d := range gpus(t) {
		for i, typ := range WeightTypes {
			M, N, K := 133, 70, testK(typ)
			if typ.BlockSize() == 1 {
				K = 100 // a multiple of 4, not of TK
			}
			key := MatmulXVec(Key{Op: OpMatmul, Weight: typ, F16: f16}, K)
			if i%2 == 1 {
				key.TM, key.TN, key.TK = 64, 64, 16
				M, N = 40, 150
			}
			if !key.XVec {
				t.Fatalf("MatmulXVec(%v, %d) did not set XVec", typ, K)
			}
			v := i % 3
			if v == 1 {
				key.Bias, key.Residual = true, true
			}
			if v == 2 {
				key.SplitK = 3
			}
			w := randWeights(t, r, typ, N, K)
			wd, err := ref.Dequant(typ, w, N*K)
			if err != nil {
				t.Fatal(err)
			}
			checkMatmulEpilogue(t, r, d, key, v, w, wd, M, N, K)
		}
	}
	if _, err := Build(Key{Op: OpMatmul, Weight: gguf.TypeF32, TM: 64, TN: 64, TK: 6, XVec: true}); err == nil {
		t.Error("Build accepted XVec with TK 6")
	}
	for _, c := range []struct {
		k    Key
		kdim int
	}{
		{Key{Op: OpMatmul, Weight: gguf.TypeF16}, 45},
		{Key{Op: OpMatmul, Weight: gguf.TypeF16, TM: 64, TN: 64, TK: 6}, 96},
		{Key{Op: OpMatvec, Weight: gguf.TypeF16}, 96},
	} {
		if got := MatmulXVec(c.k, c.kdim); got.XVec {
			t.Errorf("MatmulXVec(%v, %d) set XVec", c.k, c.kdim)
		}
	}
}
