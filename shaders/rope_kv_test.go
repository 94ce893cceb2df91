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
