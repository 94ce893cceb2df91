package shaders

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/shaders/internal/ref"
)

// ternaryWeights returns rows×K weights in {-a, 0, +a} (a random per
// 256-block, an f16 value) quantized to typ: the data BitNet files hold,
// beside randWeights' random bit patterns (which for TQ2_0 include the
// level 3, i.e. +2a).
func ternaryWeights(t *testing.T, r *rand.Rand, typ gguf.GGMLType, rows, K int) []byte {
	t.Helper()
	v := make([]float32, rows*K)
	var a float32
	for i := range v {
		if i%256 == 0 {
			a = gguf.F16ToF32(gguf.F32ToF16(float32(math.Ldexp(1+r.Float64(), -6))))
		}
		v[i] = float32(r.IntN(3)-1) * a
	}
	b, err := gguf.Quantize(typ, v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTernaryKernels runs matvec, matmul and get_rows
// over ternary TQ1_0 and TQ2_0 weights against the float64 reference, with
// the tolerances of the all-format tests.
func TestTernaryKernels(t *testing.T) {
	r := newRand(t)
	for f16, d := range gpus(t) {
		for _, typ := range []gguf.GGMLType{gguf.TypeTQ1_0, gguf.TypeTQ2_0} {
			N, K := 37, 5*256
			w := ternaryWeights(t, r, typ, N, K)
			wd, err := ref.Dequant(typ, w, N*K)
			if err != nil {
				t.Fatal(err)
			}
			x := randVec(r, K, 0.1, 1)
			want, mag := ref.Matvec(wd, ref.Widen(x), N, K)
			key := Key{Op: OpMatvec, Weight: typ, F16: f16}
			out := launch(t, d, key, MatvecParams{K: uint32(K), N: uint32(N)}, Shape{N: N}, w, f32Bytes(x), poison(4*N))
			checkClose(t, name(key.String()), bytesF32(out[2]), want, relTol(mag, matvecRel, 1e-6))
			M := 21
			xm := randVec(r, M*K, 0.1, 1)
			wantM, magM := ref.Matmul(wd, ref.Widen(xm), M, N, K)
			key = Key{Op: OpMatmul, Weight: typ, F16: f16}
			out = launch(t, d, key, MatmulParams{M: uint32(M), N: uint32(N), K: uint32(K)}, Shape{M: M, N: N}, w, f32Bytes(xm), poison(4*M*N))
			checkClose(t, name("matmul ", typ, " f16=", f16), bytesF32(out[2]), wantM, relTol(magM, matvecRel, 1e-6))
			ids := []uint32{5, 0, 36}
			var wantR []float64
			for _, id := range ids {
				wantR = append(wantR, wd[int(id)*K:int(id+1)*K]...)
			}
			out = launch(t, d, Key{Op: OpGetRows, Weight: typ, F16: f16}, GetRowsParams{K: uint32(K), M: uint32(len(ids)), Rows: uint32(N)},
				Shape{M: len(ids)}, w, u32Bytes(ids), poison(4*K*len(ids)))
			checkClose(t, name("get_rows ", typ, " f16=", f16), bytesF32(out[2]), wantR, make([]float64, len(wantR)))
		}
	}
}
