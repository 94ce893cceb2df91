package shaders

import (
	"math"
	"strings"
	"testing"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/shaders/internal/ref"
)

// get_rows is exact: each output is one dequantized weight, the same f32
// arithmetic as gguf's dequantizer, so the tolerance is 1 ulp-ish (1e-6 relative).
func TestGetRowsAllFormats(t *testing.T) {
	r := newRand(t)
	for f16, d := range gpus(t) {
		for _, typ := range WeightTypes {
			rows, K := 11, testK(typ)
			w := randWeights(t, r, typ, rows, K)
			ids := []uint32{3, 0, 10, 3, 7, 99} // 99 is out of range: a zero row
			wd, err := ref.Dequant(typ, w, rows*K)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]float64, 0, K*len(ids))
			for _, id := range ids {
				if int(id) < rows {
					want = append(want, wd[int(id)*K:int(id+1)*K]...)
				} else {
					want = append(want, make([]float64, K)...)
				}
			}
			tol := make([]float64, len(want))
			for i, v := range want {
				tol[i] = 1e-6 * math.Abs(v)
			}
			// Shape.K spreads each row over K/WG workgroups (grid z); without
			// it one workgroup takes the whole row.
			for _, spanK := range []int{0, K} {
				out := launch(t, d, Key{Op: OpGetRows, Weight: typ, F16: f16},
					GetRowsParams{K: uint32(K), M: uint32(len(ids)), Rows: uint32(rows)}, Shape{M: len(ids), K: spanK},
					w, u32Bytes(ids), poison(4*K*len(ids)))
				checkClose(t, name("get_rows ", typ, " f16=", f16, " Shape.K=", spanK), bytesF32(out[2]), want, tol)
			}
		}
	}
}

// Matmul tolerance as matvec: 1e-5 · Σ|x·w| + 1e-6, with M, N, K all off the tile grid.
func TestMatmulAllFormats(t *testing.T) {
	r := newRand(t)
	for f16, d := range gpus(t) {
		for i, typ := range WeightTypes {
			M, N, K := 19, 70, testK(typ)
			if typ.BlockSize() == 1 {
				K = 45 // not a multiple of TK
			}
			w := randWeights(t, r, typ, N, K)
			x := randVec(r, M*K, 0.1, 1)
			key := Key{Op: OpMatmul, Weight: typ, F16: f16}
			if i%2 == 1 {
				key.TM, key.TN, key.TK = 64, 64, 16
				M, N = 130, 150
				x = randVec(r, M*K, 0.1, 1)
				w = randWeights(t, r, typ, N, K)
			}
			out := launch(t, d, key, MatmulParams{M: uint32(M), N: uint32(N), K: uint32(K)}, Shape{M: M, N: N},
				w, f32Bytes(x), poison(4*M*N))
			wd, err := ref.Dequant(typ, w, N*K)
			if err != nil {
				t.Fatal(err)
			}
			want, mag := ref.Matmul(wd, ref.Widen(x), M, N, K)
			checkClose(t, name("matmul ", typ, " f16=", f16), bytesF32(out[2]), want, relTol(mag, matvecRel, 1e-6))
		}
		// Bias and residual epilogue, a non-default tile.
		M, N, K := 133, 70, 96
		typ := gguf.TypeQ8_0
		w := randWeights(t, r, typ, N, K)
		x := randVec(r, M*K, 0.1, 1)
		bias, res := randVec(r, N, 0.1, 2), randVec(r, M*N, 0.1, 2)
		key := Key{Op: OpMatmul, Weight: typ, F16: f16, Bias: true, Residual: true, TM: 128, TN: 64, TK: 8}
		out := launch(t, d, key, MatmulParams{M: uint32(M), N: uint32(N), K: uint32(K)}, Shape{M: M, N: N},
			w, f32Bytes(x), poison(4*M*N), f32Bytes(bias), f32Bytes(res))
		wd, err := ref.Dequant(typ, w, N*K)
		if err != nil {
			t.Fatal(err)
		}
		want, mag := ref.Matmul(wd, ref.Widen(x), M, N, K)
		for i := range want {
			want[i] += float64(bias[i%N]) + float64(res[i])
			mag[i]++
		}
		checkClose(t, key.String(), bytesF32(out[2]), want, relTol(mag, matvecRel, 1e-6))
	}
}

// RMSNorm tolerance: 1e-5 relative to |y| + 1e-6 (f32 sum of squares and rsqrt).
func TestRMSNorm(t *testing.T) {
	r := newRand(t)
	for f16, d := range gpus(t) {
		// K 777 takes the one-pass form (at most 8 values a thread), 4100
		// the strided loop.
		for _, c := range []struct {
			residual bool
			K        int
		}{{false, 777}, {true, 777}, {false, 4100}, {true, 4100}} {
			residual, M, K := c.residual, 5, c.K
			x := randVec(r, M*K, 0.01, 3)
			res := randVec(r, M*K, 0.01, 3)
			wt := randVec(r, K, 0.5, 1.5)
			const eps = 1e-5
			key := Key{Op: OpRMSNorm, F16: f16, Residual: residual}
			p := RMSNormParams{K: uint32(K), M: uint32(M), Eps: eps}
			h := ref.Widen(x)
			var out [][]byte
			if residual {
				out = launch(t, d, key, p, Shape{M: M}, f32Bytes(x), f32Bytes(res), f32Bytes(wt), poison(4*M*K), poison(4*M*K))
				for i := range h {
					h[i] += float64(res[i])
				}
			} else {
				out = launch(t, d, key, p, Shape{M: M}, f32Bytes(x), f32Bytes(wt), poison(4*M*K))
			}
			want := ref.RMSNorm(h, ref.Widen(wt), K, eps)
			yi := 2
			if residual {
				yi = 3
				checkClose(t, "rms_norm sum", bytesF32(out[4]), h, relTol(absAll(h), 1e-7, 0))
			}
			checkClose(t, name(key.String(), " K=", K), bytesF32(out[yi]), want, relTol(absAll(want), 1e-5, 1e-6))
		}
	}
}

// RMSNorm with PostAdd (y = res + norm(x)·weight) against float64: the
// norm's tolerance, relative to |res| + |norm| (one more f32 add), over
// rows that are not multiples of the workgroup (K = 777, 1152 = Gemma 3
// 1B's n_embd), a one-row decode and a prefill batch.
func TestRMSNormPostAdd(t *testing.T) {
	r := newRand(t)
	for f16, d := range gpus(t) {
		for _, c := range []struct{ M, K, WG int }{{1, 777, 0}, {7, 777, 0}, {1, 1152, 64}, {33, 1152, 0}, {2, 3000, 0}} {
			x := randVec(r, c.M*c.K, 0.01, 30)
			res := randVec(r, c.M*c.K, 0.01, 3)
			wt := randVec(r, c.K, 0.5, 1.5)
			const eps = 1e-6
			key := Key{Op: OpRMSNorm, F16: f16, WG: c.WG, PostAdd: true}
			out := launch(t, d, key, RMSNormParams{K: uint32(c.K), M: uint32(c.M), Eps: eps}, Shape{M: c.M},
				f32Bytes(x), f32Bytes(res), f32Bytes(wt), poison(4*c.M*c.K))
			norm := ref.RMSNorm(ref.Widen(x), ref.Widen(wt), c.K, eps)
			want, mag := make([]float64, len(norm)), make([]float64, len(norm))
			for i, v := range norm {
				want[i] = float64(res[i]) + v
				mag[i] = math.Abs(float64(res[i])) + math.Abs(v)
			}
			checkClose(t, name(key.String(), " M=", c.M, " K=", c.K), bytesF32(out[3]), want, relTol(mag, 1e-5, 1e-6))
		}
	}
}

// PostAdd is its own variant: it cannot be combined with Residual (the
// pre-add form), it binds res but no sum, and its key is spelled apart
// while keys without it keep their spelling.
func TestRMSNormPostAddKey(t *testing.T) {
	if _, err := Build(Key{Op: OpRMSNorm, Residual: true, PostAdd: true}); err == nil {
		t.Error("Residual with PostAdd built")
	}
	k, err := Build(Key{Op: OpRMSNorm, PostAdd: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(k.Bindings); n != 5 {
		t.Errorf("PostAdd: %d bindings, want 5 (params, x, res, weight, y)", n)
	}
	plain, err := Build(Key{Op: OpRMSNorm})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Key.String() == k.Key.String() || strings.Contains(plain.Key.String(), "postadd") {
		t.Errorf("keys: %q and %q", plain.Key, k.Key)
	}
	if strings.Contains(plain.WGSL, "> res:") || !strings.Contains(k.WGSL, "> res:") {
		t.Error("res binding in the plain rms_norm WGSL or not in the PostAdd one")
	}
	// Ops without it drop the field (matvec has its own PostAdd: the
	// post-norm add inside its x staging, matvec_postadd_test.go).
	rp, err := Build(Key{Op: OpRoPE, PostAdd: true})
	if err != nil {
		t.Fatal(err)
	}
	if rp.Key.PostAdd {
		t.Error("rope key keeps PostAdd")
	}
}

func absAll(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = math.Abs(x)
	}
	return out
}

// RoPE tolerance: 2e-4 · (|x_a| + |x_b|). The angle is computed in f32 as
// llama.cpp does (pos·θ loses ~pos·2^-24 rad), and Vulkan only promises
// sin/cos to 2^-11 absolute; positions here stay below 2100.
func TestRoPE(t *testing.T) {
	r := newRand(t)
	for f16, d := range gpus(t) {
		for _, c := range []struct {
			neox, ff bool
			D, nrot  int
		}{{false, false, 64, 64}, {true, false, 64, 64}, {false, true, 32, 20}, {true, true, 48, 32}} {
			M, H, pos0 := 3, 5, 2047
			base, scale := 10000.0, 0.5
			x := randVec(r, M*H*c.D, 0.1, 2)
			key := Key{Op: OpRoPE, F16: f16, Neox: c.neox, FreqFactors: c.ff}
			p := RoPEParams{M: uint32(M), Heads: uint32(H), HeadDim: uint32(c.D), NRot: uint32(c.nrot), Pos0: uint32(pos0),
				FreqBase: float32(base), FreqScale: float32(scale)}
			var out [][]byte
			var ff []float64
			if c.ff {
				var f []float32
				f, ff = randFreqFactors(r, c.nrot/2)
				out = launch(t, d, key, p, Shape{M: M, Heads: H, K: c.nrot}, f32Bytes(x), f32Bytes(f))
			} else {
				out = launch(t, d, key, p, Shape{M: M, Heads: H, K: c.nrot}, f32Bytes(x))
			}
			want := ref.RoPE(ref.Widen(x), M, H, c.D, c.nrot, pos0, float64(float32(base)), float64(float32(scale)), ff, c.neox)
			tol := make([]float64, len(want))
			for i := range tol {
				tol[i] = 2e-4 * (math.Abs(float64(x[i])) + 2)
			}
			checkClose(t, key.String(), bytesF32(out[0]), want, tol)
		}
	}
}

// Element-wise ops: 1e-6 relative (+1e-7) for add/scale/silu_mul; GELU uses
// the GPU tanh, held to 1e-5 relative + 1e-6.
func TestEltwise(t *testing.T) {
	r := newRand(t)
	for f16, d := range gpus(t) {
		N := 70001 // more than one row of 65535-wide... threads: spans several workgroups
		a := randVec(r, N, 0.01, 12)
		b := randVec(r, N, 0.01, 3)
		for _, op := range []Op{OpSiLUMul, OpGELU, OpAdd, OpScale} {
			key := Key{Op: op, F16: f16}
			p := EltwiseParams{N: uint32(N), Scale: 0.375}
			var out []byte
			if op == OpGELU || op == OpScale {
				out = launch(t, d, key, p, Shape{N: N}, f32Bytes(a), poison(4*N))[1]
			} else {
				out = launch(t, d, key, p, Shape{N: N}, f32Bytes(a), f32Bytes(b), poison(4*N))[2]
			}
			want := make([]float64, N)
			tol := make([]float64, N)
			for i := range want {
				av, bv := float64(a[i]), float64(b[i])
				rel, abs := 1e-6, 1e-7
				switch op {
				case OpSiLUMul:
					want[i] = ref.SiLU(av) * bv
				case OpGELU:
					want[i] = ref.GELU(av)
					rel, abs = 1e-5, 1e-6
				case OpAdd:
					want[i] = av + bv
				case OpScale:
					want[i] = av * 0.375
				}
				tol[i] = rel*math.Abs(want[i]) + abs
			}
			checkClose(t, key.String(), bytesF32(out), want, tol)
		}
	}
}

// KV write is a copy (exact for f32) or an f16 conversion (exact against
// gguf.F32ToF16, round to nearest even); cache slots not written keep their poison.
func TestKVWrite(t *testing.T) {
	r := newRand(t)
	for f16, d := range gpus(t) {
		for _, kv := range []gguf.GGMLType{gguf.TypeF32, gguf.TypeF16} {
			M, Hkv, D, pos0, ctx := 3, 2, 10, 4, 9
			k := randVec(r, M*Hkv*D, 0.01, 4)
			v := randVec(r, M*Hkv*D, 0.01, 4)
			esz := 4
			if kv == gguf.TypeF16 {
				esz = 2
			}
			key := Key{Op: OpKVWrite, KV: kv, F16: f16}
			out := launch(t, d, key, KVWriteParams{M: uint32(M), KVHeads: uint32(Hkv), HeadDim: uint32(D), Pos0: uint32(pos0), Ctx: uint32(ctx)},
				Shape{M: M, KVHeads: Hkv, K: D}, f32Bytes(k), f32Bytes(v), poison(esz*Hkv*ctx*D), poison(esz*Hkv*ctx*D))
			for ci, src := range [][]float32{k, v} {
				cache := out[2+ci]
				for h := 0; h < Hkv; h++ {
					for pos := 0; pos < ctx; pos++ {
						for e := 0; e < D; e++ {
							off := (h*ctx+pos)*D + e
							var got uint32
							var want uint32
							written := pos >= pos0 && pos < pos0+M
							if kv == gguf.TypeF16 {
								got = uint32(cache[2*off]) | uint32(cache[2*off+1])<<8
								want = 0x7fc0
								if e%2 == 0 && !written {
									want = 0 // low half of a poison word
								}
								if written {
									want = uint32(gguf.F32ToF16(src[((pos-pos0)*Hkv+h)*D+e]))
								}
							} else {
								got = bytesU32(cache[4*off : 4*off+4])[0]
								want = 0x7fc00000
								if written {
									want = math.Float32bits(src[((pos-pos0)*Hkv+h)*D+e])
								}
							}
							if got != want {
								t.Fatalf("%v cache %d head %d pos %d dim %d: %#x, want %#x", key, ci, h, pos, e, got, want)
							}
						}
					}
				}
			}
		}
	}
}

// Argmax and top-k are exact: indices must equal the float64 reference's
// (lowest index first on ties; ties are planted on purpose).
func TestArgmaxTopK(t *testing.T) {
	r := newRand(t)
	for f16, d := range gpus(t) {
		N := 128256
		x := randVec(r, N, 0.001, 30)
		x[77777] = 31
		x[100] = 31 // tie with 77777: index 100 wins
		x[5] = float32(math.NaN())
		x[9000] = 30.5
		x[9001] = 30.5
		xd := ref.Widen(x)
		xd[5] = math.Inf(-1) // NaN never wins
		out := bytesU32(launch(t, d, Key{Op: OpArgmax, F16: f16}, ArgmaxParams{N: uint32(N)}, Shape{}, f32Bytes(x), poison(8))[1])
		top := ref.TopK(xd, 40)
		if out[0] != uint32(top[0]) || math.Float32frombits(out[1]) != x[top[0]] {
			t.Errorf("argmax = (%d, %g), want (%d, %g)", out[0], math.Float32frombits(out[1]), top[0], x[top[0]])
		}
		for _, k := range []int{1, 7, 40} {
			const kmax = 40
			o := bytesU32(launch(t, d, Key{Op: OpTopK, TopK: kmax, F16: f16}, TopKParams{N: uint32(N), K: uint32(k)}, Shape{},
				f32Bytes(x), poison(8*kmax))[1])
			for i := 0; i < k; i++ {
				if o[i] != uint32(top[i]) || math.Float32frombits(o[kmax+i]) != x[top[i]] {
					t.Fatalf("top_k k=%d [%d] = (%d, %g), want (%d, %g)", k, i, o[i], math.Float32frombits(o[kmax+i]), top[i], x[top[i]])
				}
			}
		}
	}
}

// The two-pass top-k (a scan over G chunks, then the merge of their lists)
// is exact too, for G from 1 to the most lists, with chunks shorter than k
// (G = 127 over 2000 elements: 16 per chunk), ties across chunk boundaries
// and a chunk of NaNs only.
func TestTopKSplit(t *testing.T) {
	r := newRand(t)
	for f16, d := range gpus(t) {
		for _, c := range []struct{ n, g, k int }{{128256, TopKSplits(128256), 40}, {128256, 7, 64}, {2000, 127, 40}, {3000, 1, 5}, {151936, TopKSplits(151936), 1}} {
			x := randVec(r, c.n, 0.001, 30)
			chunk := (c.n + c.g - 1) / c.g
			x[c.n-3], x[1] = 31, 31 // tie in different chunks: index 1 first
			if c.g > 1 {
				x[chunk-1], x[chunk] = 30.75, 30.75 // tie across one chunk boundary
				for i := 2 * chunk; i < min(c.n, 3*chunk); i++ {
					x[i] = float32(math.NaN())
				}
			}
			xd := ref.Widen(x)
			for i, v := range x {
				if v != v {
					xd[i] = math.Inf(-1)
				}
			}
			const kmax = 64
			scan := launch(t, d, Key{Op: OpTopK, TopK: kmax, F16: f16}, TopKParams{N: uint32(c.n), K: uint32(c.k)}, Shape{Splits: c.g},
				f32Bytes(x), poison(8*kmax*c.g))[1]
			o := bytesU32(scan)
			if c.g > 1 {
				o = bytesU32(launch(t, d, Key{Op: OpTopK, TopK: kmax, Merge: true, F16: f16}, TopKParams{N: uint32(c.g), K: uint32(c.k)}, Shape{},
					scan, poison(8*kmax))[1])
			}
			top := ref.TopK(xd, c.k)
			for i := 0; i < c.k; i++ {
				if o[i] != uint32(top[i]) || math.Float32frombits(o[kmax+i]) != x[top[i]] {
					t.Fatalf("n=%d G=%d k=%d: [%d] = (%d, %g), want (%d, %g)", c.n, c.g, c.k, i, o[i], math.Float32frombits(o[kmax+i]), top[i], x[top[i]])
				}
			}
		}
	}
}
