package shaders

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/internal/longtest"
	"github.com/webgguf/webgguf/shaders/internal/ref"
)

// attnTol is the attention tolerance: 2e-5 · max|V| per output (f32 dot
// products, exp and the online-softmax rescaling).
const attnTol = 2e-5

// randCache fills a [Hkv][ctx][D] cache of type kv with random values (the
// slots past the attended range too, so a mask bug shows) and returns its
// bytes and the values the GPU sees (f16-rounded for an f16 cache).
func randCache(r *rand.Rand, kv gguf.GGMLType, n int) ([]byte, []float64) {
	v := randVec(r, n, 0.05, 2)
	if kv == gguf.TypeF32 {
		return f32Bytes(v), ref.Widen(v)
	}
	b := make([]byte, 2*n)
	vals := make([]float64, n)
	for i, x := range v {
		h := gguf.F32ToF16(x)
		b[2*i], b[2*i+1] = byte(h), byte(h>>8)
		vals[i] = float64(gguf.F16ToF32(h))
	}
	return b, vals
}

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

func TestAttnDecode(t *testing.T) {
	r := newRand(t)
	for f16, d := range gpus(t) {
		for ci, c := range []struct{ D, L, ctx, splits, wg int }{
			{64, 77, 100, 4, 0}, {128, 300, 301, 3, 0}, {40, 5, 9, 8, 32}, {64, 1, 4, 2, 0},
			{32, 150, 160, 2, 0}, {256, 70, 90, 2, 0},
			// 128-key tiles (the runtime's one-pass kernel): a partial
			// second tile, and one tile with keys left over.
			{64, 200, 210, 2, 128}, {128, 97, 129, 2, 128},
		} {
			for _, kv := range cacheTypes(ci) {
				H, Hkv := 6, 2
				q := randVec(r, H*c.D, 0.05, 2)
				kb, kd := randCache(r, kv, Hkv*c.ctx*c.D)
				vb, vd := randCache(r, kv, Hkv*c.ctx*c.D)
				scale := 1 / math.Sqrt(float64(c.D))
				key := Key{Op: OpAttnDecode, KV: kv, HeadDim: c.D, F16: f16, WG: c.wg}
				part := launch(t, d, key, AttnDecodeParams{Heads: uint32(H), KVHeads: uint32(Hkv), L: uint32(c.L), Ctx: uint32(c.ctx),
					Splits: uint32(c.splits), Scale: float32(scale)}, Shape{Heads: H, Splits: c.splits},
					f32Bytes(q), kb, vb, poison(4*H*c.splits*(c.D+2)))[3]
				mkey := Key{Op: OpAttnMerge, HeadDim: c.D, F16: f16}
				out := launch(t, d, mkey, AttnMergeParams{Heads: uint32(H), Splits: uint32(c.splits)}, Shape{Heads: H},
					part, poison(4*H*c.D))[1]
				want, tol := attnDecodeRef(q, kd, vd, H, Hkv, c.ctx, c.D, c.L, scale)
				checkClose(t, name(key.String(), " L=", c.L, " splits=", c.splits), bytesF32(out), want, tol)

				// NoSplit: one workgroup per head writes the output directly;
				// Group: one workgroup per KV head serves its H/Hkv query heads.
				for _, g := range []int{1, H / Hkv} {
					nkey := Key{Op: OpAttnDecode, KV: kv, HeadDim: c.D, F16: f16, WG: c.wg, NoSplit: true, Group: g}
					direct := launch(t, d, nkey, AttnDecodeParams{Heads: uint32(H), KVHeads: uint32(Hkv), L: uint32(c.L), Ctx: uint32(c.ctx),
						Splits: 1, Scale: float32(scale)}, Shape{Heads: H, KVHeads: Hkv, Splits: 1}, f32Bytes(q), kb, vb, poison(4*H*c.D))[3]
					checkClose(t, name(nkey.String(), " L=", c.L), bytesF32(direct), want, tol)
				}
				gkey := Key{Op: OpAttnDecode, KV: kv, HeadDim: c.D, F16: f16, WG: c.wg, Group: H / Hkv}
				gpart := launch(t, d, gkey, AttnDecodeParams{Heads: uint32(H), KVHeads: uint32(Hkv), L: uint32(c.L), Ctx: uint32(c.ctx),
					Splits: uint32(c.splits), Scale: float32(scale)}, Shape{Heads: H, KVHeads: Hkv, Splits: c.splits},
					f32Bytes(q), kb, vb, poison(4*H*c.splits*(c.D+2)))[3]
				gout := launch(t, d, mkey, AttnMergeParams{Heads: uint32(H), Splits: uint32(c.splits)}, Shape{Heads: H},
					gpart, poison(4*H*c.D))[1]
				checkClose(t, name(gkey.String(), " L=", c.L, " splits=", c.splits), bytesF32(gout), want, tol)

				// Coop (the tile's loads issued together), with and without
				// Prefetch: split + merge, and one pass.
				if !CoopAttn(c.D, 1, c.wg) {
					continue
				}
				for _, pf := range []bool{false, true} {
					ckey := Key{Op: OpAttnDecode, KV: kv, HeadDim: c.D, F16: f16, WG: c.wg, Coop: true, Prefetch: pf}
					cpart := launch(t, d, ckey, AttnDecodeParams{Heads: uint32(H), KVHeads: uint32(Hkv), L: uint32(c.L), Ctx: uint32(c.ctx),
						Splits: uint32(c.splits), Scale: float32(scale)}, Shape{Heads: H, Splits: c.splits},
						f32Bytes(q), kb, vb, poison(4*H*c.splits*(c.D+2)))[3]
					cout := launch(t, d, mkey, AttnMergeParams{Heads: uint32(H), Splits: uint32(c.splits)}, Shape{Heads: H},
						cpart, poison(4*H*c.D))[1]
					checkClose(t, name(ckey.String(), " L=", c.L, " splits=", c.splits), bytesF32(cout), want, tol)
					ckey.NoSplit = true
					cdirect := launch(t, d, ckey, AttnDecodeParams{Heads: uint32(H), KVHeads: uint32(Hkv), L: uint32(c.L), Ctx: uint32(c.ctx),
						Splits: 1, Scale: float32(scale)}, Shape{Heads: H, KVHeads: Hkv, Splits: 1}, f32Bytes(q), kb, vb, poison(4*H*c.D))[3]
					checkClose(t, name(ckey.String(), " L=", c.L), bytesF32(cdirect), want, tol)
				}
			}
		}
	}
}

func TestAttnPrefill(t *testing.T) {
	r := newRand(t)
	for f16, d := range gpus(t) {
		// parts > 1: that many threads per query (Key.SplitK), each
		// taking a share of every K/V tile, merged at the end (vec4
		// rows, vec2 when HeadDim % 4 != 0); M and the ranges cover
		// queries past M in a workgroup, positions no part of a query
		// reaches and rows whose vectors are not a multiple of the
		// merge round.
		for ci, c := range []struct{ D, M, pos0, ctx, wg, parts int }{
			{64, 13, 20, 40, 0, 0}, {128, 37, 0, 37, 16, 0}, {40, 5, 3, 9, 16, 0},
			{64, 70, 20, 100, 256, 4}, {64, 13, 0, 13, 64, 4}, {128, 37, 5, 50, 128, 2}, {40, 21, 3, 30, 64, 8},
			{36, 9, 0, 9, 32, 4}, {42, 11, 2, 20, 64, 2}, {64, 70, 0, 70, 128, 2}, {64, 70, 20, 100, 128, 4},
			// Sizes for the tiled kernel (Coop): several query blocks,
			// a last block cut by M, prefixes that are not a multiple
			// of the tile, fewer queries than a quad.
			{64, 150, 33, 190, 0, 0}, {128, 67, 0, 67, 0, 0}, {64, 40, 45, 90, 0, 0}, {128, 3, 61, 64, 0, 0},
			{256, 67, 5, 90, 0, 0}, {256, 3, 61, 64, 0, 0},
		} {
			for _, kv := range cacheTypes(ci) {
				H, Hkv := 4, 2
				q := randVec(r, c.M*H*c.D, 0.05, 2)
				kb, kd := randCache(r, kv, Hkv*c.ctx*c.D)
				vb, vd := randCache(r, kv, Hkv*c.ctx*c.D)
				scale := 1 / math.Sqrt(float64(c.D))
				key := Key{Op: OpAttnPrefill, KV: kv, HeadDim: c.D, F16: f16, WG: c.wg, SplitK: c.parts}
				out := launch(t, d, key, AttnPrefillParams{M: uint32(c.M), Heads: uint32(H), KVHeads: uint32(Hkv), Pos0: uint32(c.pos0),
					Ctx: uint32(c.ctx), Scale: float32(scale)}, Shape{M: c.M, Heads: H},
					f32Bytes(q), kb, vb, poison(4*c.M*H*c.D))[3]
				var want []float64
				for i := 0; i < c.M; i++ {
					for h := 0; h < H; h++ {
						qr := ref.Widen(q[(i*H+h)*c.D : (i*H+h+1)*c.D])
						want = append(want, ref.Attention(qr, kd, vd, h/(H/Hkv), c.ctx, c.D, c.pos0+i+1, float64(float32(scale)))...)
					}
				}
				tol := make([]float64, len(want))
				vmax := maxAbs(vd)
				for i := range tol {
					tol[i] = attnTol * vmax
				}
				checkClose(t, name(key.String(), " M=", c.M, " pos0=", c.pos0), bytesF32(out), want, tol)

				// The register-tiled kernel (Coop), at each of its
				// workgroup sizes, on the same inputs.
				if !TiledAttnPrefill(c.D) {
					continue
				}
				for _, tc := range tiledAttnPrefillCases(c.D) {
					tkey := Key{Op: OpAttnPrefill, KV: kv, HeadDim: c.D, F16: f16, WG: tc.wg, TK: tc.tk, Coop: true}
					tout := launch(t, d, tkey, AttnPrefillParams{M: uint32(c.M), Heads: uint32(H), KVHeads: uint32(Hkv), Pos0: uint32(c.pos0),
						Ctx: uint32(c.ctx), Scale: float32(scale)}, Shape{M: c.M, Heads: H},
						f32Bytes(q), kb, vb, poison(4*c.M*H*c.D))[3]
					checkClose(t, name(tkey.String(), " M=", c.M, " pos0=", c.pos0), bytesF32(tout), want, tol)
				}
			}
		}
	}
}

// attnDecodeRef is the float64 attention of the H query heads in q over L
// positions of the caches kd, vd ([Hkv][ctx][D]; GQA groups of H/Hkv) at
// the kernels' f32 scale, and the tolerance of each output.
func attnDecodeRef(q []float32, kd, vd []float64, H, Hkv, ctx, D, L int, scale float64) (want, tol []float64) {
	for h := 0; h < H; h++ {
		want = append(want, ref.Attention(ref.Widen(q[h*D:(h+1)*D]), kd, vd, h/(H/Hkv), ctx, D, L, float64(float32(scale)))...)
	}
	tol = make([]float64, len(want))
	for i := range tol {
		tol[i] = attnTol * maxAbs(vd)
	}
	return want, tol
}

// TestAttnDecodeCoopGroup: the Coop kernel serving a GQA group from one
// workgroup (attn_decode_gqa.wgsl, G = 2, 3, 4 as vec lanes; larger groups
// over several workgroups of up to 4 lanes), split + merge
// and one pass, f32 and f16 caches, against the float64 reference.
func TestAttnDecodeCoopGroup(t *testing.T) {
	r := newRand(t)
	for f16, d := range gpus(t) {
		for ci, c := range []struct{ H, Hkv, D, L, ctx, splits, wg int }{
			{8, 2, 64, 77, 100, 4, 0}, {6, 2, 128, 300, 301, 3, 0}, {4, 2, 64, 1, 4, 2, 0},
			{12, 3, 32, 150, 160, 5, 0}, {4, 1, 256, 70, 90, 2, 0}, {6, 3, 64, 200, 200, 1, 32},
			// Groups over 4 heads: several workgroups a KV head (7 = 4 + 3
			// with an idle lane, 6 = 3 + 3, 5 = 3 + 2, 8 = 4 + 4, 12 = 3 × 4).
			{14, 2, 64, 130, 140, 3, 0}, {12, 2, 128, 77, 100, 4, 0}, {10, 2, 64, 65, 65, 1, 0},
			{16, 2, 64, 300, 301, 2, 0}, {24, 2, 32, 90, 95, 3, 0},
		} {
			for _, kv := range cacheTypes(ci) {
				q := randVec(r, c.H*c.D, 0.05, 2)
				kb, kd := randCache(r, kv, c.Hkv*c.ctx*c.D)
				vb, vd := randCache(r, kv, c.Hkv*c.ctx*c.D)
				scale := 1 / math.Sqrt(float64(c.D))
				want, tol := attnDecodeRef(q, kd, vd, c.H, c.Hkv, c.ctx, c.D, c.L, scale)
				g := c.H / c.Hkv
				if !CoopAttn(c.D, g, c.wg) {
					t.Fatalf("case %+v: CoopAttn refuses group %d", c, g)
				}
				key := Key{Op: OpAttnDecode, KV: kv, HeadDim: c.D, F16: f16, WG: c.wg, Coop: true, Group: g}
				part := launch(t, d, key, AttnDecodeParams{Heads: uint32(c.H), KVHeads: uint32(c.Hkv), L: uint32(c.L), Ctx: uint32(c.ctx),
					Splits: uint32(c.splits), Scale: float32(scale)}, Shape{Heads: c.H, KVHeads: c.Hkv, Splits: c.splits},
					f32Bytes(q), kb, vb, poison(4*c.H*c.splits*(c.D+2)))[3]
				mkey := Key{Op: OpAttnMerge, HeadDim: c.D, F16: f16}
				out := launch(t, d, mkey, AttnMergeParams{Heads: uint32(c.H), Splits: uint32(c.splits)}, Shape{Heads: c.H},
					part, poison(4*c.H*c.D))[1]
				checkClose(t, name(key.String(), " L=", c.L, " splits=", c.splits), bytesF32(out), want, tol)
				key.NoSplit = true
				direct := launch(t, d, key, AttnDecodeParams{Heads: uint32(c.H), KVHeads: uint32(c.Hkv), L: uint32(c.L), Ctx: uint32(c.ctx),
					Splits: 1, Scale: float32(scale)}, Shape{Heads: c.H, KVHeads: c.Hkv, Splits: 1}, f32Bytes(q), kb, vb, poison(4*c.H*c.D))[3]
				checkClose(t, name(key.String(), " L=", c.L), bytesF32(direct), want, tol)
			}
		}
	}
}

// TestAttnF16CacheEveryValue reads every f16 bit pattern out of an f16 V
// cache: with one attended position the softmax weight is exactly 1, so the
// output is the cached V row itself, converted to f32 (llama.cpp's
// GGML_FP16_TO_FP32: zeros, subnormals, infinities and NaNs included).
func TestAttnF16CacheEveryValue(t *testing.T) {
	r := newRand(t)
	const D, H = 256, 256 // one position of 256 KV heads of 256 dims: 65536 values
	vb := make([]byte, 2*H*D)
	for i := range H * D {
		vb[2*i], vb[2*i+1] = byte(i), byte(i>>8)
	}
	kb, _ := randCache(r, gguf.TypeF16, H*D)
	q := randVec(r, H*D, 0.05, 2)
	for f16, d := range gpus(t) {
		// Each way of reading the cache: the decode kernel by pairs, Coop by
		// quads (one 8-byte load, kvbind_quad), the prefill kernel by pairs
		// with one thread per query and by vec4s of two pairs with four.
		outs := map[Key][]byte{}
		for _, key := range []Key{
			{Op: OpAttnDecode, KV: gguf.TypeF16, HeadDim: D, F16: f16, NoSplit: true},
			{Op: OpAttnDecode, KV: gguf.TypeF16, HeadDim: D, F16: f16, NoSplit: true, Coop: true},
		} {
			outs[key] = launch(t, d, key, AttnDecodeParams{Heads: H, KVHeads: H, L: 1, Ctx: 1, Splits: 1, Scale: 0.0625},
				Shape{Heads: H, KVHeads: H, Splits: 1}, f32Bytes(q), kb, vb, poison(4*H*D))[3]
		}
		for _, key := range []Key{
			{Op: OpAttnPrefill, KV: gguf.TypeF16, HeadDim: D, F16: f16},
			{Op: OpAttnPrefill, KV: gguf.TypeF16, HeadDim: D, F16: f16, WG: 128, SplitK: 4},
		} {
			outs[key] = launch(t, d, key, AttnPrefillParams{M: 1, Heads: H, KVHeads: H, Pos0: 0, Ctx: 1, Scale: 0.0625},
				Shape{M: 1, Heads: H}, f32Bytes(q), kb, vb, poison(4*H*D))[3]
		}
		for key, out := range outs {
			got := bytesF32(out)
			bad := 0
			for i, g := range got[:H*D] {
				want := gguf.F16ToF32(uint16(i))
				same := g == want || math.IsNaN(float64(g)) && math.IsNaN(float64(want))
				if !same && bad < 5 {
					t.Errorf("%v: f16 %#04x read as %g (%#08x), want %g", key, i, g, math.Float32bits(g), want)
				}
				if !same {
					bad++
				}
			}
			if bad > 0 {
				t.Errorf("%v: %d of 65536 f16 values read wrong", key, bad)
			}
		}
	}
}

// cacheTypes is what a sweep's case i runs with: an f16 cache (the GPU
// backend's default) always, an f32 one for the first case only, or for
// every case with the long tag.
func cacheTypes(i int) []gguf.GGMLType {
	if i == 0 || longtest.Enabled {
		return []gguf.GGMLType{gguf.TypeF32, gguf.TypeF16}
	}
	return []gguf.GGMLType{gguf.TypeF16}
}
