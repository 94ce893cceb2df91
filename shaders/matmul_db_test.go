package shaders

import (
	"math/rand/v2"
	"testing"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/shaders/internal/ref"
	"github.com/webgguf/webgguf/webgpu"
)

// The double-buffered matmul (Key.DB) equals the float64 x·Wᵀ for formats
// with a dq4 and the cached block scales (q4_0 and q8_0 in ggml order and
// packed, q4_K, packed q6_K), f16 with an odd K (a step ending mid-word),
// f32 with K off the step and a format decoded element by element (q5_K),
// on every tile DB fits, unsplit and split (uneven slices, one slice of a
// single step), with bias and residual; M and N off the tile grid. Each
// case alternates which buffer the last step reads (K of an odd and an
// even step count). Tolerance as TestMatmulAllFormats.
func TestMatmulDoubleBuffered(t *testing.T) {
	r := newRand(t)
	cases := []struct {
		typ    gguf.GGMLType
		packed bool
		k      int
	}{{gguf.TypeQ4_0, false, 224}, {gguf.TypeQ4_0, true, 512}, {gguf.TypeQ8_0, true, 256}, {gguf.TypeQ8_0, false, 160},
		{gguf.TypeQ4_K, false, 512}, {gguf.TypeQ6_K, true, 2048}, {gguf.TypeQ5_K, false, 256},
		{gguf.TypeF16, false, 101}, {gguf.TypeF32, false, 45}}
	tiles := [][3]int{{128, 128, 8}, {64, 64, 16}, {128, 64, 8}, {64, 128, 4}}
	for f16, d := range gpus(t) {
		for ci, c := range cases {
			for ti, tl := range tiles {
				// Rotate the epilogues and splits over the cases so that each
				// tile meets each of them without the full product of both.
				v := (ci + ti) % 3
				M, N, K := 133, 70, c.k
				if ti%2 == 1 {
					M, N = 40, 150
				}
				key := Key{Op: OpMatmul, Weight: c.typ, F16: f16, Packed: c.packed, TM: tl[0], TN: tl[1], TK: tl[2], DB: true}
				// vec4 x reads (Key.XVec) where K allows, on alternate tiles.
				if ti%2 == 0 {
					key = MatmulXVec(key, K)
				}
				if v == 1 {
					key.Bias, key.Residual = true, true
				}
				if v == 2 {
					key.SplitK = 3
				}
				w, wd := randMatrix(t, r, c.typ, c.packed, N, K)
				checkMatmulEpilogue(t, r, d, key, v, w, wd, M, N, K)
			}
		}
	}
	for _, k := range []Key{
		{Op: OpMatmul, Weight: gguf.TypeQ4_0, TM: 128, TN: 128, TK: 16, DB: true}, // 32 KiB
		{Op: OpMatmul, Weight: gguf.TypeQ4_0, TM: 64, TN: 64, TK: 6, DB: true},    // TK not a multiple of 4
	} {
		if _, err := Build(k); err == nil {
			t.Errorf("Build(%v) accepted", k)
		}
	}
}

// checkMatmulEpilogue runs matmul key (its Bias, Residual and SplitK set
// by the caller for epilogue v) on weights w (dequantized: wd) and a random
// x, and judges y against the float64 x·Wᵀ: v 0 plain, 1 plus bias and
// residual, 2 split in 3 slices (key.SplitK = 3) added by split_sum.
// Tolerance as TestMatmulAllFormats.
func checkMatmulEpilogue(t *testing.T, r *rand.Rand, d *webgpu.Device, key Key, v int, w []byte, wd []float64, M, N, K int) {
	t.Helper()
	x := randVec(r, M*K, 0.1, 1)
	bias, res := randVec(r, N, 0.1, 2), randVec(r, M*N, 0.1, 2)
	want, mag := ref.Matmul(wd, ref.Widen(x), M, N, K)
	stride := M*N + 5 // slices need not be packed
	mp := MatmulParams{M: uint32(M), N: uint32(N), K: uint32(K), Stride: uint32(stride)}
	var got []float32
	switch v {
	case 0:
		got = bytesF32(launch(t, d, key, mp, Shape{M: M, N: N}, w, f32Bytes(x), poison(4*M*N))[2])
	case 1:
		got = bytesF32(launch(t, d, key, mp, Shape{M: M, N: N}, w, f32Bytes(x), poison(4*M*N), f32Bytes(bias), f32Bytes(res))[2])
		for i := range want {
			want[i] += float64(bias[i%N]) + float64(res[i])
			mag[i] += 2
		}
	case 2:
		part := launch(t, d, key, mp, Shape{M: M, N: N}, w, f32Bytes(x), poison(4*stride*3))[2]
		sum := launch(t, d, Key{Op: OpSplitSum, SplitK: 3}, SplitSumParams{N: uint32(M * N), Stride: uint32(stride)},
			Shape{N: M * N}, part, poison(4*M*N))
		got = bytesF32(sum[1])
	}
	checkClose(t, key.String(), got, want, relTol(mag, matvecRel, 1e-6))
}
