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
				key := MatmulTuned(Key{Op: OpMatmul, Weight: typ, F16: f16}, c.m, c.n)
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
	if k := (Key{Op: OpMatmul, TM: 64, TN: 64, TK: 8}); MatmulTuned(k, 512, 8192) != k {
		t.Errorf("MatmulTuned changed a key that sets its tile")
	}
}
