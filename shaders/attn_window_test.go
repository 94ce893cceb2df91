package shaders

import (
	"math"
	"testing"

	"github.com/webgguf/webgguf/gguf"
)

// attnVariant is the attention semantics a test case asks for: Key.Window,
// Key.Softcap, Key.NonCausal and Key.Ring.
type attnVariant struct {
	win       int
	cap       float32
	nonCausal bool
	ring      bool
}

func (v attnVariant) key(k Key) Key {
	k.Window, k.Softcap, k.NonCausal, k.Ring = v.win, v.cap, v.nonCausal, v.ring
	return k
}

// attnVariantRef is the float64 attention of query q (D values, already
// f32) over the positions lo..hi of KV head hk of the caches kd, vd
// ([Hkv][ctx][D]): position t in row t mod ctx for a ring, else row t;
// scores scaled by the f32 scale, soft-capped by cap (> 0).
func attnVariantRef(q []float32, kd, vd []float64, hk, ctx, D, lo, hi int, scale float64, cap float32, ring bool) []float64 {
	row := func(t int) int {
		if ring {
			return t % ctx
		}
		return t
	}
	s := make([]float64, hi-lo+1)
	mx := math.Inf(-1)
	for t := lo; t <= hi; t++ {
		var d float64
		for i := 0; i < D; i++ {
			d += float64(q[i]) * kd[(hk*ctx+row(t))*D+i]
		}
		d *= float64(float32(scale))
		if cap > 0 {
			d = float64(cap) * math.Tanh(d/float64(cap))
		}
		s[t-lo] = d
		mx = math.Max(mx, d)
	}
	var sum float64
	for i := range s {
		s[i] = math.Exp(s[i] - mx)
		sum += s[i]
	}
	out := make([]float64, D)
	for t := lo; t <= hi; t++ {
		for i := 0; i < D; i++ {
			out[i] += s[t-lo] / sum * vd[(hk*ctx+row(t))*D+i]
		}
	}
	return out
}

// visible is the key range lo..hi a query at pos sees in a batch whose last
// position is last.
func (v attnVariant) visible(pos, last int) (lo, hi int) {
	hi = pos
	if v.nonCausal {
		hi = last
	}
	if v.win > 0 {
		lo = max(0, pos-v.win+1)
	}
	return lo, hi
}

// TestAttnDecodeWindowSoftcapRing runs every decode kernel (rounds of 8,
// Group, Coop, Coop with Prefetch, the Coop GQA kernel; split + merge and
// one pass) with a sliding window (ranges longer and shorter than it),
// a score soft-cap and a ring cache whose positions wrap around it several
// times, on f32 and f16 caches, head sizes 64 and 256, GQA and MQA,
// against the float64 reference. The cache rows outside the range hold
// random values too, so a kernel reading one shows.
func TestAttnDecodeWindowSoftcapRing(t *testing.T) {
	r := newRand(t)
	type dcase struct {
		H, Hkv, D, L, ctx, splits int
		v                         attnVariant
	}
	cases := []dcase{
		{4, 1, 256, 300, 310, 4, attnVariant{win: 50}},                 // MQA, head 256, window well inside the range
		{6, 2, 64, 300, 300, 3, attnVariant{win: 37, cap: 1.5}},        // window and soft-cap
		{6, 2, 64, 20, 40, 3, attnVariant{win: 37}},                    // range shorter than the window
		{8, 2, 64, 90, 100, 2, attnVariant{cap: 0.7}},                  // soft-cap alone
		{4, 1, 256, 5*23 + 7, 23, 3, attnVariant{win: 20, ring: true}}, // a ring of 23 wrapped 5 times
		{8, 2, 64, 7*45 + 44, 45, 4, attnVariant{win: 40, cap: 2, ring: true}},
		{6, 2, 64, 12, 45, 4, attnVariant{win: 40, ring: true}},          // a ring not yet full
		{4, 4, 64, 3*140 + 5, 140, 5, attnVariant{win: 129, ring: true}}, // a window over one 128-key tile
	}
	for f16, d := range gpus(t) {
		for _, kv := range []gguf.GGMLType{gguf.TypeF32, gguf.TypeF16} {
			if f16 && kv != gguf.TypeF16 {
				continue // shader-f16 changes only how an f16 cache is read
			}
			for _, c := range cases {
				q := randVec(r, c.H*c.D, 0.05, 2)
				kb, kd := randCache(r, kv, c.Hkv*c.ctx*c.D)
				vb, vd := randCache(r, kv, c.Hkv*c.ctx*c.D)
				scale := 1 / math.Sqrt(float64(c.D))
				lo, hi := c.v.visible(c.L-1, c.L-1)
				var want []float64
				for h := 0; h < c.H; h++ {
					want = append(want, attnVariantRef(q[h*c.D:(h+1)*c.D], kd, vd, h/(c.H/c.Hkv), c.ctx, c.D, lo, hi, scale, c.v.cap, c.v.ring)...)
				}
				tol := make([]float64, len(want))
				for i := range tol {
					tol[i] = attnTol * maxAbs(vd)
				}
				g := c.H / c.Hkv
				params := func(splits int) AttnDecodeParams {
					return AttnDecodeParams{Heads: uint32(c.H), KVHeads: uint32(c.Hkv), L: uint32(c.L), Ctx: uint32(c.ctx), Splits: uint32(splits), Scale: float32(scale)}
				}
				keys := []Key{
					{Op: OpAttnDecode},
					{Op: OpAttnDecode, Group: g},
					{Op: OpAttnDecode, Coop: true},
					{Op: OpAttnDecode, Coop: true, Prefetch: true},
					{Op: OpAttnDecode, WG: 128, Coop: true},
				}
				if g > 1 {
					keys = append(keys, Key{Op: OpAttnDecode, Coop: true, Group: g})
				}
				for _, k := range keys {
					k.KV, k.HeadDim, k.F16 = kv, c.D, f16
					k = c.v.key(k)
					sh := Shape{Heads: c.H, KVHeads: c.Hkv, Splits: c.splits}
					part := launch(t, d, k, params(c.splits), sh, f32Bytes(q), kb, vb, poison(4*c.H*c.splits*(c.D+2)))[3]
					out := launch(t, d, Key{Op: OpAttnMerge, HeadDim: c.D, F16: f16}, AttnMergeParams{Heads: uint32(c.H), Splits: uint32(c.splits)},
						Shape{Heads: c.H}, part, poison(4*c.H*c.D))[1]
					checkClose(t, name(k.String(), " L=", c.L, " splits=", c.splits), bytesF32(out), want, tol)
					k.NoSplit = true
					sh.Splits = 1
					direct := launch(t, d, k, params(1), sh, f32Bytes(q), kb, vb, poison(4*c.H*c.D))[3]
					checkClose(t, name(k.String(), " L=", c.L), bytesF32(direct), want, tol)
				}
			}
		}
	}
}

// TestAttnPrefillWindowSoftcapRing runs the prefill attention kernels (one
// and several threads a query, the tiled kernel at head sizes 64, 128 and
// 256)
// with sliding windows (batches longer than the window, and windows
// starting inside an earlier batch), soft-caps, non-causal rows and ring
// caches wrapped several times, on f32 and f16 caches, against the
// float64 reference.
func TestAttnPrefillWindowSoftcapRing(t *testing.T) {
	r := newRand(t)
	type pcase struct {
		H, Hkv, D, M, pos0, ctx int
		v                       attnVariant
	}
	cases := []pcase{
		{4, 2, 64, 70, 20, 100, attnVariant{win: 9}},                             // batch longer than the window
		{4, 1, 256, 37, 50, 100, attnVariant{win: 16, cap: 1.5}},                 // MQA, head 256
		{4, 2, 128, 67, 3, 80, attnVariant{win: 40}},                             // windows starting inside the prefix
		{4, 2, 64, 45, 30, 80, attnVariant{nonCausal: true}},                     // encoder rows
		{4, 2, 64, 45, 30, 80, attnVariant{nonCausal: true, win: 12, cap: 2}},    // non-causal with a window
		{4, 2, 64, 40, 5*47 + 3, 47, attnVariant{win: 8, ring: true}},            // a ring of 47 wrapped 5 times, batch > window
		{4, 1, 256, 20, 3*60 + 50, 60, attnVariant{win: 41, ring: true, cap: 1}}, // a batch wrapping the ring
		{4, 2, 128, 64, 2*100 + 10, 100, attnVariant{win: 37, ring: true}},
		{4, 2, 64, 13, 0, 80, attnVariant{win: 5, cap: 0.7}}, // from position 0
	}
	for f16, d := range gpus(t) {
		for _, kv := range []gguf.GGMLType{gguf.TypeF32, gguf.TypeF16} {
			if f16 && kv != gguf.TypeF16 {
				continue // shader-f16 changes only how an f16 cache is read
			}
			for _, c := range cases {
				q := randVec(r, c.M*c.H*c.D, 0.05, 2)
				kb, kd := randCache(r, kv, c.Hkv*c.ctx*c.D)
				vb, vd := randCache(r, kv, c.Hkv*c.ctx*c.D)
				scale := 1 / math.Sqrt(float64(c.D))
				var want []float64
				for i := 0; i < c.M; i++ {
					lo, hi := c.v.visible(c.pos0+i, c.pos0+c.M-1)
					for h := 0; h < c.H; h++ {
						qr := q[(i*c.H+h)*c.D : (i*c.H+h+1)*c.D]
						want = append(want, attnVariantRef(qr, kd, vd, h/(c.H/c.Hkv), c.ctx, c.D, lo, hi, scale, c.v.cap, c.v.ring)...)
					}
				}
				tol := make([]float64, len(want))
				for i := range tol {
					tol[i] = attnTol * maxAbs(vd)
				}
				keys := []Key{{Op: OpAttnPrefill}, {Op: OpAttnPrefill, WG: 128, SplitK: 2}, {Op: OpAttnPrefill, WG: 128, SplitK: 4}}
				if TiledAttnPrefill(c.D) {
					for _, tc := range tiledAttnPrefillCases(c.D) {
						keys = append(keys, Key{Op: OpAttnPrefill, Coop: true, WG: tc.wg, TK: tc.tk})
					}
				}
				for _, k := range keys {
					k.KV, k.HeadDim, k.F16 = kv, c.D, f16
					k = c.v.key(k)
					out := launch(t, d, k, AttnPrefillParams{M: uint32(c.M), Heads: uint32(c.H), KVHeads: uint32(c.Hkv), Pos0: uint32(c.pos0),
						Ctx: uint32(c.ctx), Scale: float32(scale)}, Shape{M: c.M, Heads: c.H},
						f32Bytes(q), kb, vb, poison(4*c.M*c.H*c.D))[3]
					checkClose(t, name(k.String(), " M=", c.M, " pos0=", c.pos0), bytesF32(out), want, tol)
				}
			}
		}
	}
}

// TestKVWriteRing: kv_write into a ring cache stores position p in row
// p mod Ctx, a batch wrapping the end of the ring included, and leaves
// the other rows alone.
func TestKVWriteRing(t *testing.T) {
	r := newRand(t)
	const M, Hkv, D, ctx, pos0 = 9, 2, 64, 13, 3*13 + 8
	for f16, d := range gpus(t) {
		for _, kv := range []gguf.GGMLType{gguf.TypeF32, gguf.TypeF16} {
			k := randVec(r, M*Hkv*D, 0.05, 2)
			v := randVec(r, M*Hkv*D, 0.05, 2)
			esz := 4
			if kv == gguf.TypeF16 {
				esz = 2
			}
			cache := poison(esz * Hkv * ctx * D)
			key := Key{Op: OpKVWrite, KV: kv, F16: f16, Ring: true}
			out := launch(t, d, key, KVWriteParams{M: M, KVHeads: Hkv, HeadDim: D, Pos0: pos0, Ctx: ctx}, Shape{M: M, KVHeads: Hkv, K: D},
				f32Bytes(k), f32Bytes(v), cache, cache)
			for ci, src := range [][]float32{k, v} {
				got := out[2+ci]
				written := map[int]bool{}
				for i := 0; i < M; i++ {
					for h := 0; h < Hkv; h++ {
						row := (pos0 + i) % ctx
						for e := 0; e < D; e++ {
							at := (h*ctx+row)*D + e
							written[at] = true
							want := src[(i*Hkv+h)*D+e]
							var g float32
							if kv == gguf.TypeF16 {
								g = gguf.F16ToF32(uint16(got[2*at]) | uint16(got[2*at+1])<<8)
								want = gguf.F16ToF32(gguf.F32ToF16(want))
							} else {
								g = bytesF32(got[4*at : 4*at+4])[0]
							}
							if g != want {
								t.Fatalf("%v: cache %d, pos %d head %d elem %d (row %d) = %g, want %g", key, ci, pos0+i, h, e, row, g, want)
							}
						}
					}
				}
				for at := 0; at < Hkv*ctx*D; at++ {
					if written[at] {
						continue
					}
					for b := 0; b < esz; b++ {
						if got[esz*at+b] != cache[esz*at+b] {
							t.Fatalf("%v: cache %d element %d (row %d) overwritten", key, ci, at, at/D%ctx)
						}
					}
				}
			}
		}
	}
}
