package shaders

import (
	"testing"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/shaders/internal/ref"
)

// Matvec tolerance: |y - ref| <= 1e-5 · Σ_k |w_k x_k| + 1e-6. The float64
// reference uses gguf's dequantized weights; the bound covers f32 rounding
// of the products and of a K-term sum.
const matvecRel = 1e-5

// testK returns a reduction length that is a few whole blocks of t, not a
// multiple of the threads per row times 32, and odd for plain types (their
// 8-element path); K = 320 covers the plain types' 32-element path.
func testK(t gguf.GGMLType) int {
	switch t.BlockSize() {
	case 1:
		return 333
	case 32:
		return 7 * 32
	}
	return 3 * 256
}

func TestMatvecAllFormats(t *testing.T) {
	r := newRand(t)
	for f16, d := range gpus(t) {
		for _, typ := range WeightTypes {
			stageK := 1280 // 40 units: 3 staging steps of 16 units, the last partial
			if typ.BlockSize() == 256 {
				stageK = 768
			}
			for _, c := range []struct {
				rows, rpt, wg, K int
			}{{1, 1, 0, testK(typ)}, {0, 0, 0, testK(typ)}, {8, 4, 32, 2 * testK(typ)}, {16, 2, 64, 320}, {8, 2, 64, stageK}} {
				if c.K == 320 && typ.BlockSize() == 256 {
					continue
				}
				N, K := 37, c.K
				key := Key{Op: OpMatvec, Weight: typ, F16: f16, Rows: c.rows, RPT: c.rpt, WG: c.wg}
				w := randWeights(t, r, typ, N, K)
				x := randVec(r, K, 0.1, 1)
				out := launch(t, d, key, MatvecParams{K: uint32(K), N: uint32(N)}, Shape{N: N},
					w, f32Bytes(x), poison(4*N))
				wd, err := ref.Dequant(typ, w, N*K)
				if err != nil {
					t.Fatal(err)
				}
				want, mag := ref.Matvec(wd, ref.Widen(x), N, K)
				checkClose(t, name(key.String()), bytesF32(out[2]), want, relTol(mag, matvecRel, 1e-6))
			}
		}
	}
}

func TestMatvecEpilogues(t *testing.T) {
	r := newRand(t)
	for f16, d := range gpus(t) {
		for _, typ := range []gguf.GGMLType{gguf.TypeQ4_0, gguf.TypeQ6_K, gguf.TypeIQ4_NL, gguf.TypeF16} {
			N, K := 29, testK(typ)
			w := randWeights(t, r, typ, N, K)
			x := randVec(r, K, 0.1, 1)
			bias := randVec(r, N, 0.1, 2)
			res := randVec(r, N, 0.1, 2)
			wd, err := ref.Dequant(typ, w, N*K)
			if err != nil {
				t.Fatal(err)
			}
			want, mag := ref.Matvec(wd, ref.Widen(x), N, K)
			key := Key{Op: OpMatvec, Weight: typ, F16: f16, Bias: true, Residual: true}
			out := launch(t, d, key, MatvecParams{K: uint32(K), N: uint32(N)}, Shape{N: N},
				w, f32Bytes(x), poison(4*N), f32Bytes(bias), f32Bytes(res))
			for i := range want {
				want[i] += float64(bias[i]) + float64(res[i])
				mag[i] += 1
			}
			checkClose(t, key.String(), bytesF32(out[2]), want, relTol(mag, matvecRel, 1e-6))

			// SwiGLU: gate and up matrices, y = silu(g·x) * (u·x).
			wu := randWeights(t, r, typ, N, K)
			wud, err := ref.Dequant(typ, wu, N*K)
			if err != nil {
				t.Fatal(err)
			}
			up, magU := ref.Matvec(wud, ref.Widen(x), N, K)
			key = Key{Op: OpMatvec, Weight: typ, F16: f16, SwiGLU: true}
			if typ.BlockSize() > 1 {
				key.WG, key.Rows, key.RPT = 32, 4, 4 // not the default shape, so both shapes meet SwiGLU
			}
			out = launch(t, d, key, MatvecParams{K: uint32(K), N: uint32(N)}, Shape{N: N},
				w, f32Bytes(x), poison(4*N), wu)
			g, magG := ref.Matvec(wd, ref.Widen(x), N, K)
			sw := make([]float64, N)
			tol := make([]float64, N)
			for i := range sw {
				sw[i] = ref.SiLU(g[i]) * up[i]
				// silu has slope <= 1.1, so the gate error passes through scaled by |u|.
				tol[i] = matvecRel*(1.1*magG[i]*absf(up[i])+absf(ref.SiLU(g[i]))*magU[i]) + 1e-6
			}
			checkClose(t, key.String(), bytesF32(out[2]), sw, tol)
		}
	}
}

func absf(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// The fused QKV matvec, mixed formats per matrix, against three float64
// matvecs (tolerance as matvec).
func TestMatvecQKV(t *testing.T) {
	r := newRand(t)
	for f16, d := range gpus(t) {
		for _, c := range []struct {
			q, k, v       gguf.GGMLType
			wg, rows, rpt int
			bias          bool
		}{
			{gguf.TypeQ4_K, gguf.TypeQ4_K, gguf.TypeQ6_K, 0, 0, 0, false},
			{gguf.TypeQ8_0, gguf.TypeQ8_0, gguf.TypeQ8_0, 0, 16, 8, true},
			{gguf.TypeF16, gguf.TypeF32, gguf.TypeBF16, 0, 8, 2, false},
			{gguf.TypeQ4_0, gguf.TypeIQ4_XS, gguf.TypeQ5_1, 0, 4, 4, true},
			{gguf.TypeQ2_K, gguf.TypeQ3_K, gguf.TypeIQ4_NL, 0, 0, 0, false},
			// One EPV for all three: the plain path (x from global memory),
			// the first in the runtime's shape for it (MatvecTuned: 128:4:4).
			{gguf.TypeF16, gguf.TypeBF16, gguf.TypeF16, 128, 4, 4, true},
			{gguf.TypeF32, gguf.TypeF32, gguf.TypeF32, 0, 16, 4, false},
		} {
			K, Nq, Nk, Nv := 512, 64, 16, 24
			key := Key{Op: OpMatvecQKV, Weight: c.q, WeightK: c.k, WeightV: c.v, WG: c.wg, Rows: c.rows, RPT: c.rpt, F16: f16, Bias: c.bias}
			x := randVec(r, K, 0.1, 1)
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
			out := launch(t, d, key, MatvecQKVParams{K: uint32(K), Nq: uint32(Nq), Nk: uint32(Nk), Nv: uint32(Nv)},
				Shape{N: Nq + Nk + Nv}, bufs...)
			for i, oi := range []int{2, 4, 6} {
				wd, err := ref.Dequant(types[i], ws[i], ns[i]*K)
				if err != nil {
					t.Fatal(err)
				}
				want, mag := ref.Matvec(wd, ref.Widen(x), ns[i], K)
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

// More workgroups than one grid row holds (65535): Dispatch spreads them over
// x and y and the kernel folds them back; every row must still be written.
func TestMatvecSpreadGrid(t *testing.T) {
	r := newRand(t)
	d := gpus(t)[false]
	N, K := 70001, 32
	key := Key{Op: OpMatvec, Weight: gguf.TypeQ8_0, WG: 32, Rows: 1, RPT: 1}
	k, err := Build(key)
	if err != nil {
		t.Fatal(err)
	}
	if _, y, _ := k.Dispatch(Shape{N: N}); y < 2 {
		t.Fatalf("grid for %d rows has y = %d, want a spread grid", N, y)
	}
	w := randWeights(t, r, gguf.TypeQ8_0, N, K)
	x := randVec(r, K, 0.1, 1)
	out := launch(t, d, key, MatvecParams{K: uint32(K), N: uint32(N)}, Shape{N: N}, w, f32Bytes(x), poison(4*N))
	wd, err := ref.Dequant(gguf.TypeQ8_0, w, N*K)
	if err != nil {
		t.Fatal(err)
	}
	want, mag := ref.Matvec(wd, ref.Widen(x), N, K)
	checkClose(t, key.String(), bytesF32(out[2]), want, relTol(mag, matvecRel, 1e-6))
}
