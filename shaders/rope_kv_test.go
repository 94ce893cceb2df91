package shaders

import (
	"math"
	"testing"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/shaders/internal/ref"
)

// rope_kv against the float64 RoPE: q in place and the K cache within the
// RoPE tolerance (2e-4·(|x|+2), see TestRoPE) plus, for an f16 cache, half an
// f16 ulp (2^-11 relative); V rows copied exactly (bit-exact f16 rounding);
// cache slots outside the written positions keep their NaN poison.
func TestRoPEKV(t *testing.T) {
	r := newRand(t)
	for f16, d := range gpus(t) {
		for _, c := range []struct {
			neox, ff bool
			D, nrot  int
			kv       gguf.GGMLType
		}{{false, false, 64, 64, gguf.TypeF32}, {true, true, 48, 32, gguf.TypeF16}, {true, false, 64, 64, gguf.TypeF16}, {false, true, 40, 24, gguf.TypeF32}} {
			M, H, Hkv, pos0, ctx := 3, 4, 2, 500, 510
			base, scale := 500000.0, 1.0
			q := randVec(r, M*H*c.D, 0.1, 2)
			k := randVec(r, M*Hkv*c.D, 0.1, 2)
			v := randVec(r, M*Hkv*c.D, 0.1, 2)
			esz := 4
			if c.kv == gguf.TypeF16 {
				esz = 2
			}
			key := Key{Op: OpRoPEKV, F16: f16, Neox: c.neox, FreqFactors: c.ff, KV: c.kv}
			p := RoPEKVParams{M: uint32(M), Heads: uint32(H), KVHeads: uint32(Hkv), HeadDim: uint32(c.D), NRot: uint32(c.nrot),
				Pos0: uint32(pos0), Ctx: uint32(ctx), FreqBase: float32(base), FreqScale: float32(scale)}
			shape := Shape{M: M, Heads: H, KVHeads: Hkv, K: c.nrot, N: c.D}
			bufs := [][]byte{f32Bytes(q), f32Bytes(k), f32Bytes(v), poison(esz * Hkv * ctx * c.D), poison(esz * Hkv * ctx * c.D)}
			var ff []float64
			if c.ff {
				var f []float32
				f, ff = randFreqFactors(r, c.nrot/2)
				bufs = append(bufs, f32Bytes(f))
			}
			out := launch(t, d, key, p, shape, bufs...)
			rope := func(x []float32, heads int) []float64 {
				return ref.RoPE(ref.Widen(x), M, heads, c.D, c.nrot, pos0, float64(float32(base)), float64(float32(scale)), ff, c.neox)
			}
			tolFor := func(x []float32, want []float64, f16 bool) []float64 {
				tol := make([]float64, len(want))
				for i := range tol {
					tol[i] = 2e-4 * (math.Abs(float64(x[i])) + 2)
					if f16 {
						tol[i] += math.Abs(want[i]) / 2048
					}
				}
				return tol
			}
			wq := rope(q, H)
			checkClose(t, key.String()+" q", bytesF32(out[0]), wq, tolFor(q, wq, false))
			wk := rope(k, Hkv)
			// Gather the written cache rows back into [M][Hkv][D] order.
			cache := func(b []byte) []float32 {
				g := make([]float32, M*Hkv*c.D)
				for i := 0; i < M; i++ {
					for h := 0; h < Hkv; h++ {
						for e := 0; e < c.D; e++ {
							off := (h*ctx+pos0+i)*c.D + e
							if esz == 2 {
								g[(i*Hkv+h)*c.D+e] = gguf.F16ToF32(uint16(b[2*off]) | uint16(b[2*off+1])<<8)
							} else {
								g[(i*Hkv+h)*c.D+e] = bytesF32(b[4*off : 4*off+4])[0]
							}
						}
					}
				}
				return g
			}
			checkClose(t, key.String()+" k_cache", cache(out[3]), wk, tolFor(k, wk, esz == 2))
			gv := cache(out[4])
			for i, x := range v {
				want := x
				if esz == 2 {
					want = gguf.F16ToF32(gguf.F32ToF16(x))
				}
				if gv[i] != want {
					t.Fatalf("%v v_cache[%d] = %g, want %g", key, i, gv[i], want)
				}
			}
			// Slot pos0-1 of head 0 was not written: still NaN poison.
			off := (pos0 - 1) * c.D
			if b := out[3][esz*off : esz*off+4]; bytesU32(b)[0] != 0x7fc00000 {
				t.Errorf("%v: k_cache slot before pos0 overwritten: % x", key, b)
			}
		}
	}
}

// rope_kv with Key.Norm (Qwen3's and Gemma 3's per-head q/k RMSNorms before
// RoPE) against float64 RMSNorm then RoPE: q in place and the K cache within
// the RoPE tolerance of the normed values (2e-4·(|x̂|+2), x̂ the normed
// element) plus, for an f16 cache, half an f16 ulp; V rows copied exactly;
// the other cache rows keep their NaN poison. Decode (M 1) and prefill rows,
// normal and NEOX pairing, partial rotary (the norm covers the whole head,
// the rotation NRot dims), freq factors, ring caches wrapping within the
// batch, f32 and f16 caches, and workgroups smaller and larger than a head.
func TestRoPEKVNorm(t *testing.T) {
	r := newRand(t)
	for f16, d := range gpus(t) {
		for _, c := range []struct {
			neox, ff, ring bool
			M, D, nrot, wg int
			kv             gguf.GGMLType
		}{
			{false, false, false, 1, 128, 128, 0, gguf.TypeF16},  // Qwen3 decode
			{true, false, true, 3, 256, 256, 0, gguf.TypeF16},    // Gemma 3, ring wrapping
			{true, true, false, 5, 64, 32, 32, gguf.TypeF32},     // partial NEOX, small workgroup
			{false, true, true, 4, 48, 24, 256, gguf.TypeF32},    // partial normal, workgroup over a head
			{false, false, false, 2, 256, 128, 64, gguf.TypeF16}, // partial, two pairs a thread
			{true, false, false, 1, 128, 128, 128, gguf.TypeF32},
		} {
			H, Hkv, ctx := 4, 2, 10
			pos0 := 5
			if c.ring {
				pos0 = 3*ctx + 8 // rows 8, 9, 0, 1: wraps
			}
			base, scale, eps := 1000000.0, 1.0, float32(1e-6)
			q := randVec(r, c.M*H*c.D, 0.01, 3)
			k := randVec(r, c.M*Hkv*c.D, 0.01, 3)
			v := randVec(r, c.M*Hkv*c.D, 0.1, 2)
			qw := randVec(r, c.D, 0.2, 2)
			kw := randVec(r, c.D, 0.2, 2)
			esz := 4
			if c.kv == gguf.TypeF16 {
				esz = 2
			}
			key := Key{Op: OpRoPEKV, F16: f16, Neox: c.neox, FreqFactors: c.ff, KV: c.kv, Ring: c.ring, Norm: true, WG: c.wg}
			p := RoPEKVParams{M: uint32(c.M), Heads: uint32(H), KVHeads: uint32(Hkv), HeadDim: uint32(c.D), NRot: uint32(c.nrot),
				Pos0: uint32(pos0), Ctx: uint32(ctx), FreqBase: float32(base), FreqScale: float32(scale), Eps: eps}
			shape := Shape{M: c.M, Heads: H, KVHeads: Hkv, K: c.nrot, N: c.D}
			cache0 := poison(esz * Hkv * ctx * c.D)
			bufs := [][]byte{f32Bytes(q), f32Bytes(k), f32Bytes(v), cache0, cache0}
			var ff []float64
			if c.ff {
				var f []float32
				f, ff = randFreqFactors(r, c.nrot/2)
				bufs = append(bufs, f32Bytes(f))
			}
			bufs = append(bufs, f32Bytes(qw), f32Bytes(kw))
			out := launch(t, d, key, p, shape, bufs...)
			what := name(key.String(), " M=", c.M, " D=", c.D, " nrot=", c.nrot)
			normRope := func(x, w []float32, heads int) (want, tol []float64) {
				xn := ref.RMSNorm(ref.Widen(x), ref.Widen(w), c.D, float64(eps))
				want = ref.RoPE(xn, c.M, heads, c.D, c.nrot, pos0, float64(float32(base)), float64(float32(scale)), ff, c.neox)
				tol = make([]float64, len(want))
				for i := range tol {
					tol[i] = 2e-4 * (math.Abs(xn[i]) + 2)
				}
				return want, tol
			}
			wq, tq := normRope(q, qw, H)
			checkClose(t, what+" q", bytesF32(out[0]), wq, tq)
			wk, tk := normRope(k, kw, Hkv)
			for i := range tk {
				if esz == 2 {
					tk[i] += math.Abs(wk[i]) / 2048
				}
			}
			// Gather the written cache rows back into [M][Hkv][D] order;
			// every other element must still be poison.
			cache := func(b []byte, which string) []float32 {
				g := make([]float32, c.M*Hkv*c.D)
				written := map[int]bool{}
				for i := 0; i < c.M; i++ {
					row := pos0 + i
					if c.ring {
						row %= ctx
					}
					for h := 0; h < Hkv; h++ {
						for e := 0; e < c.D; e++ {
							off := (h*ctx+row)*c.D + e
							written[off] = true
							if esz == 2 {
								g[(i*Hkv+h)*c.D+e] = gguf.F16ToF32(uint16(b[2*off]) | uint16(b[2*off+1])<<8)
							} else {
								g[(i*Hkv+h)*c.D+e] = bytesF32(b[4*off : 4*off+4])[0]
							}
						}
					}
				}
				for at := 0; at < Hkv*ctx*c.D; at++ {
					if written[at] {
						continue
					}
					for j := 0; j < esz; j++ {
						if b[esz*at+j] != cache0[esz*at+j] {
							t.Fatalf("%s: %s element %d (row %d) overwritten", what, which, at, at/c.D%ctx)
						}
					}
				}
				return g
			}
			checkClose(t, what+" k_cache", cache(out[3], "k_cache"), wk, tk)
			gv := cache(out[4], "v_cache")
			for i, x := range v {
				want := x
				if esz == 2 {
					want = gguf.F16ToF32(gguf.F32ToF16(x))
				}
				if gv[i] != want {
					t.Fatalf("%s v_cache[%d] = %g, want %g", what, i, gv[i], want)
				}
			}
		}
	}
}
