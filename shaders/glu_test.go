package shaders

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/shaders/internal/ref"
)

// geluSlope bounds |gelu'(x)| (1.129 at x ≈ 1.5): the gate's error passes
// through gelu scaled by at most this.
const geluSlope = 1.13

// gluRef returns act(g)·u and the tolerance of an f32 kernel computing it
// from dots whose own error is matvecRel·magG and matvecRel·magU: the gate
// error through act's slope (SiLU's <= 1.1, GELU's <= 1.13) times |u|, the up
// error times |act(g)|, and for GELU the exp in the kernel's sigmoid form
// (Vulkan: 3 + 2|x| ulp; 1e-5 relative covers |2t| up to ~40).
func gluRef(act Act, g, u, magG, magU float64) (want, tol float64) {
	a, slope, rel := ref.SiLU(g), 1.1, 0.0
	if act == ActGELU {
		a, slope, rel = ref.GELU(g), geluSlope, 1e-5
	}
	want = a * u
	return want, matvecRel*(slope*magG*absf(u)+absf(a)*magU) + rel*absf(want) + 1e-6
}

// The GeGLU matvec (Key.SwiGLU with Act GELU: y = gelu(g·x)·(u·x)) against
// float64 for every weight format, in the default shape, the tuned shapes
// the runtime picks on hardware (MatvecTuned: plain 32:2:2, block formats
// 128:16:2 with XU 64), packed (q4_0, q8_0, q6_K) and with the fused
// RMSNorm (Key.Norm).
func TestMatvecGeGLU(t *testing.T) {
	r := newRand(t)
	const eps = 1e-5
	for f16, d := range gpus(t) {
		type variant struct {
			wg, rows, rpt, xu int
			norm, packed      bool
		}
		for _, typ := range WeightTypes {
			vs := []variant{{}, {norm: true}}
			if typ.BlockSize() == 1 {
				vs = append(vs, variant{wg: 32, rows: 2, rpt: 2}, variant{wg: 32, rows: 2, rpt: 2, norm: true})
			} else {
				vs = append(vs, variant{wg: 128, rows: 16, rpt: 2, xu: 64, norm: true})
				if packedType(typ) {
					vs = append(vs, variant{packed: true}, variant{wg: 128, rows: 16, rpt: 2, xu: 64, packed: true, norm: true})
				}
			}
			for _, v := range vs {
				N, K := 37, testK(typ)
				if v.xu == 64 || v.packed {
					K = 1280 // several staging rounds
					if typ.BlockSize() == 256 {
						K = 1536
					}
				}
				if v.packed {
					for !Packable(typ, K) {
						K += typ.BlockSize()
					}
				}
				key := Key{Op: OpMatvec, Weight: typ, F16: f16, SwiGLU: true, Act: ActGELU, WG: v.wg, Rows: v.rows, RPT: v.rpt, XU: v.xu,
					Norm: v.norm, Packed: v.packed}
				wg, gd := randMatrix(t, r, typ, v.packed, N, K)
				wu, ud := randMatrix(t, r, typ, v.packed, N, K)
				x := randVec(r, K, 0.1, 1)
				xr := ref.Widen(x)
				bufs := [][]byte{wg, f32Bytes(x), poison(4 * N), wu}
				if v.norm {
					x = randVec(r, K, 0.5, 8) // far from unit scale: a missing norm shows
					nw := randVec(r, K, 0.2, 2)
					xr = normRef(x, nw, eps)
					bufs = [][]byte{wg, f32Bytes(x), poison(4 * N), wu, f32Bytes(nw)}
				}
				out := launch(t, d, key, MatvecParams{K: uint32(K), N: uint32(N), Eps: eps}, Shape{N: N}, bufs...)
				g, magG := ref.Matvec(gd, xr, N, K)
				u, magU := ref.Matvec(ud, xr, N, K)
				want, tol := make([]float64, N), make([]float64, N)
				for i := range want {
					want[i], tol[i] = gluRef(ActGELU, g[i], u[i], magG[i], magU[i])
				}
				checkClose(t, key.String(), bytesF32(out[2]), want, tol)
			}
		}
	}
}

// The GeGLU matmul (prefill: gate and up rows in the two halves of a
// 128-column tile, gelu(g)·u in the epilogue) against float64, with the
// SwiGLU matmul test's formats and variants (both tiles MatmulTuned picks,
// double-buffered tiles, vec4 x reads, one binding for gate and up) plus
// q8_0 and q6_K, in ggml order and packed.
func TestMatmulGeGLU(t *testing.T) {
	r := newRand(t)
	cases := []struct {
		typ    gguf.GGMLType
		packed bool
		k      int
	}{{gguf.TypeQ4_0, false, 224}, {gguf.TypeQ4_0, true, 512}, {gguf.TypeQ8_0, false, 256}, {gguf.TypeQ8_0, true, 256},
		{gguf.TypeQ4_K, false, 512}, {gguf.TypeF16, false, 100}, {gguf.TypeQ6_K, false, 256}, {gguf.TypeQ6_K, true, 2048},
		{gguf.TypeF32, false, 64}, {gguf.TypeBF16, false, 96}}
	for f16, d := range gpus(t) {
		for _, c := range cases {
			for i, m := range []int{130, 40, 130} {
				M, N, K := m, 150, c.k
				key := MatmulTuned(Key{Op: OpMatmul, Weight: c.typ, F16: f16, Packed: c.packed, SwiGLU: true, Act: ActGELU}, M, 2*N, K)
				if i == 2 {
					key.DB = true
				}
				if i > 0 {
					key = MatmulXVec(key, K)
				}
				wg, gd := randMatrix(t, r, c.typ, c.packed, N, K)
				wu, ud := randMatrix(t, r, c.typ, c.packed, N, K)
				x := randVec(r, M*K, 0.1, 1)
				params := MatmulParams{M: uint32(M), N: uint32(N), K: uint32(K)}
				binds := [][]byte{wg, f32Bytes(x), poison(4 * M * N), wu}
				if key.XVec && c.typ.BlockSize() == 1 && i == 2 {
					key.OneW = true
					var w []byte
					w, params.Off = oneBinding(c.typ, wg, wu)
					binds = [][]byte{w, f32Bytes(x), poison(4 * M * N)}
				}
				out := launch(t, d, key, params, Shape{M: M, N: 2 * N}, binds...)
				g, magG := ref.Matmul(gd, ref.Widen(x), M, N, K)
				u, magU := ref.Matmul(ud, ref.Widen(x), M, N, K)
				want, tol := make([]float64, M*N), make([]float64, M*N)
				for j := range want {
					want[j], tol[j] = gluRef(ActGELU, g[j], u[j], magG[j], magU[j])
				}
				checkClose(t, key.String(), bytesF32(out[2]), want, tol)
			}
		}
	}
}

// Key.Act: spelled only when GELU (SwiGLU keys keep their spelling), it
// selects the epilogue's function in every SwiGLU kernel (plain and block
// matvecs, the matmul), and Build rejects it
// wherever no kernel would apply it.
func TestKeyAct(t *testing.T) {
	silu := Key{Op: OpMatvec, Weight: gguf.TypeQ4_0, SwiGLU: true}
	gelu := silu
	gelu.Act = ActGELU
	if strings.Contains(silu.String(), "act=") || !strings.HasSuffix(gelu.String(), "/act=gelu") {
		t.Errorf("spellings %q, %q", silu, gelu)
	}
	for _, k := range []Key{
		{Op: OpMatvec, Weight: gguf.TypeQ4_0, SwiGLU: true},
		{Op: OpMatvec, Weight: gguf.TypeF16, SwiGLU: true, Norm: true},
		{Op: OpMatmul, Weight: gguf.TypeQ4_K, SwiGLU: true},
		{Op: OpMatmul, Weight: gguf.TypeF16, SwiGLU: true, XVec: true, OneW: true},
	} {
		for _, act := range []Act{ActSiLU, ActGELU} {
			k.Act = act
			kern, err := Build(k)
			if err != nil {
				t.Fatalf("%v: %v", k, err)
			}
			if kern.Key.Act != act {
				t.Errorf("%v resolved to Act %v", k, kern.Key.Act)
			}
			// silu is always defined (common.wgsl), gelu only where applied;
			// the activation applied is defined and called.
			if strings.Count(kern.WGSL, act.String()+"(") < 2 || act == ActSiLU && strings.Contains(kern.WGSL, "gelu(") {
				t.Errorf("%v: the WGSL does not apply %v alone", k, act)
			}
		}
	}
	for _, k := range []Key{
		{Op: OpMatvec, Weight: gguf.TypeQ4_0, Act: ActGELU},
		{Op: OpMatmul, Weight: gguf.TypeQ4_0, Act: ActGELU},
		{Op: OpMatvecQKV, Weight: gguf.TypeQ4_0, Act: ActGELU},
		{Op: OpSiLUMul, Act: ActGELU},
		{Op: OpMatvec, Weight: gguf.TypeQ4_0, SwiGLU: true, Act: 7},
	} {
		var ke *KeyError
		if _, err := Build(k); !errors.As(err, &ke) || ke.Field != "Act" {
			t.Errorf("%v: got %v, want a KeyError on Act", k, err)
		}
	}
}

// The element-wise ops of the GLU and norm families: gelu_mul, silu, mul,
// softcap (two caps), and gelu, each against float64 on random data that
// includes large magnitudes (|x| up to 1e4, where a naive tanh overflows:
// every result must stay finite). Tolerance: 1e-6 relative (+1e-7) for
// mul; 1e-5 relative (+1e-6) for the exp-based activations and the tanh.
func TestEltwiseGLUOps(t *testing.T) {
	r := newRand(t)
	for f16, d := range gpus(t) {
		N := 70001
		a := randVec(r, N, 0.01, 12)
		b := randVec(r, N, 0.01, 3)
		for i := 0; i < N; i += 97 {
			a[i] *= 800 // up to ±9600
		}
		a[1], a[2], a[3], a[4] = 1e-6, -3e-5, 0.2499, -0.2501 // tanh series and its boundary
		for _, c := range []struct {
			op  Op
			cap float32
		}{{OpGELUMul, 0}, {OpSiLU, 0}, {OpMul, 0}, {OpSoftcap, 30}, {OpSoftcap, 0.75}, {OpGELU, 0}} {
			key := Key{Op: c.op, F16: f16}
			p := EltwiseParams{N: uint32(N), Scale: c.cap}
			var out []byte
			if unaryElt(c.op) {
				out = launch(t, d, key, p, Shape{N: N}, f32Bytes(a), poison(4*N))[1]
			} else {
				out = launch(t, d, key, p, Shape{N: N}, f32Bytes(a), f32Bytes(b), poison(4*N))[2]
			}
			want, tol := make([]float64, N), make([]float64, N)
			for i := range want {
				av, bv := float64(a[i]), float64(b[i])
				rel, abs := 1e-5, 1e-6
				switch c.op {
				case OpGELUMul:
					want[i] = ref.GELU(av) * bv
				case OpSiLU:
					want[i] = ref.SiLU(av)
				case OpMul:
					want[i] = av * bv
					rel, abs = 1e-6, 1e-7
				case OpSoftcap:
					s := float64(c.cap)
					want[i] = s * math.Tanh(av/s)
					abs = 1e-6 * s
				case OpGELU:
					want[i] = ref.GELU(av)
				}
				tol[i] = rel*math.Abs(want[i]) + abs
			}
			checkClose(t, name(key.String(), " cap ", c.cap), bytesF32(out), want, tol)
		}
	}
}

// LayerNorm with and without bias, groups of 777 (several elements per
// thread, not a multiple of the workgroup) and 64, on rows whose mean is far
// from zero (so centring matters), against the float64 ggml_norm followed
// by the weight multiply and bias add. Tolerance: the f32 mean's error
// (~1e-6 of the row's magnitude) scaled by the inverse deviation, plus
// 1e-5 of |y| + 1e-6.
func TestLayerNorm(t *testing.T) {
	r := newRand(t)
	const eps = 1e-5
	for f16, d := range gpus(t) {
		for _, c := range []struct {
			M, K int
			bias bool
		}{{5, 777, false}, {5, 777, true}, {12, 64, true}} {
			M, K := c.M, c.K
			x := randVec(r, M*K, 0.01, 3)
			for i := range x {
				x[i] += float32(4 * (i / K % 3)) // row means 0, 4, 8
			}
			w := randVec(r, K, 0.5, 1.5)
			bs := randVec(r, K, 0.1, 2)
			key := Key{Op: OpLayerNorm, F16: f16, Bias: c.bias}
			p := LayerNormParams{K: uint32(K), M: uint32(M), Eps: eps}
			var out [][]byte
			yi := 2
			if c.bias {
				out = launch(t, d, key, p, Shape{M: M}, f32Bytes(x), f32Bytes(w), f32Bytes(bs), poison(4*M*K))
				yi = 3
			} else {
				out = launch(t, d, key, p, Shape{M: M}, f32Bytes(x), f32Bytes(w), poison(4*M*K))
			}
			want, tol := make([]float64, M*K), make([]float64, M*K)
			for row := 0; row < M; row++ {
				xs := ref.Widen(x[row*K : (row+1)*K])
				var mean, v, mag float64
				for _, e := range xs {
					mean += e
					mag = max(mag, math.Abs(e))
				}
				mean /= float64(K)
				for _, e := range xs {
					v += (e - mean) * (e - mean)
				}
				inv := 1 / math.Sqrt(v/float64(K)+eps)
				for e, xe := range xs {
					y := (xe - mean) * inv * float64(w[e])
					if c.bias {
						y += float64(bs[e])
					}
					want[row*K+e] = y
					tol[row*K+e] = 1e-6*mag*inv*math.Abs(float64(w[e])) + 1e-5*math.Abs(y) + 1e-6
				}
			}
			checkClose(t, key.String(), bytesF32(out[yi]), want, tol)
		}
	}
}
