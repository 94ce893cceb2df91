package shaders

import (
	"math"
	"testing"

	"github.com/webgguf/webgguf/gguf"
)

type tiledAttnCase struct{ wg, tk int }

// tiledAttnPrefillCases are the workgroup sizes and keys a tile the tests
// run the tiled prefill attention at for head size D: each workgroup size,
// the default tile and a smaller one. Head size 256 (split scores) takes
// at most 8 keys a tile (4 at 256 threads) in 16 KiB.
func tiledAttnPrefillCases(D int) []tiledAttnCase {
	if D > 128 {
		return []tiledAttnCase{{128, 0}, {256, 0}, {64, 8}, {128, 4}}
	}
	return []tiledAttnCase{{128, 16}, {256, 0}, {64, 12}}
}

// TestAttnTiledHead256 runs the tiled prefill attention at head size 256
// (score dims split among a query's 4 threads) against the float64
// reference: MQA and GQA, windows shorter and longer than the batch and
// starting inside the prefix, soft-caps, non-causal rows, rings wrapped
// several times (a batch wrapping the ring too), batches cut inside a
// workgroup and inside a quad, each workgroup size; f16 caches, and f32
// ones for the first case (for every case with the long tag).
func TestAttnTiledHead256(t *testing.T) {
	r := newRand(t)
	const D = 256
	type pcase struct {
		H, Hkv, M, pos0, ctx int
		v                    attnVariant
	}
	cases := []pcase{
		{4, 1, 70, 0, 70, attnVariant{}},                                    // MQA from position 0
		{4, 1, 45, 37, 90, attnVariant{}},                                   // a prefix not a multiple of the tile
		{8, 2, 3, 61, 64, attnVariant{}},                                    // GQA, fewer queries than a quad
		{4, 1, 70, 20, 100, attnVariant{win: 9}},                            // batch longer than the window
		{4, 1, 37, 50, 100, attnVariant{win: 512, cap: 30}},                 // window longer than the batch and the prefix
		{8, 2, 67, 3, 80, attnVariant{win: 40, cap: 1.5}},                   // windows starting inside the prefix
		{4, 1, 45, 30, 80, attnVariant{nonCausal: true}},                    // encoder rows
		{4, 1, 45, 30, 80, attnVariant{nonCausal: true, win: 12, cap: 2}},   // non-causal with a window
		{4, 1, 40, 5*47 + 3, 47, attnVariant{win: 8, ring: true}},           // a ring of 47 wrapped 5 times, batch > window
		{4, 1, 20, 3*60 + 50, 60, attnVariant{win: 41, ring: true, cap: 1}}, // a batch wrapping the ring
		{8, 2, 64, 2*100 + 10, 100, attnVariant{win: 37, ring: true}},
	}
	for f16, d := range gpus(t) {
		for ci, c := range cases {
			for _, kv := range cacheTypes(ci) {
				if f16 && kv != gguf.TypeF16 {
					continue // shader-f16 changes only how an f16 cache is read
				}
				q := randVec(r, c.M*c.H*D, 0.05, 2)
				kb, kd := randCache(r, kv, c.Hkv*c.ctx*D)
				vb, vd := randCache(r, kv, c.Hkv*c.ctx*D)
				scale := 1 / math.Sqrt(float64(D))
				var want []float64
				for i := 0; i < c.M; i++ {
					lo, hi := c.v.visible(c.pos0+i, c.pos0+c.M-1)
					for h := 0; h < c.H; h++ {
						qr := q[(i*c.H+h)*D : (i*c.H+h+1)*D]
						want = append(want, attnVariantRef(qr, kd, vd, h/(c.H/c.Hkv), c.ctx, D, lo, hi, scale, c.v.cap, c.v.ring)...)
					}
				}
				tol := make([]float64, len(want))
				vmax := maxAbs(vd)
				for i := range tol {
					tol[i] = attnTol * vmax
				}
				for _, tc := range tiledAttnPrefillCases(D) {
					k := c.v.key(Key{Op: OpAttnPrefill, KV: kv, HeadDim: D, F16: f16, WG: tc.wg, TK: tc.tk, Coop: true})
					out := launch(t, d, k, AttnPrefillParams{M: uint32(c.M), Heads: uint32(c.H), KVHeads: uint32(c.Hkv), Pos0: uint32(c.pos0),
						Ctx: uint32(c.ctx), Scale: float32(scale)}, Shape{M: c.M, Heads: c.H},
						f32Bytes(q), kb, vb, poison(4*c.M*c.H*D))[3]
					checkClose(t, name(k.String(), " M=", c.M, " pos0=", c.pos0), bytesF32(out), want, tol)
				}
			}
		}
	}
}

// TestAttnTiledHead256Tiles: head size 256 takes 8 keys a tile by default
// (4 at 256 threads) within WebGPU's 16 KiB of workgroup memory, and
// refuses tiles that do not fit.
func TestAttnTiledHead256Tiles(t *testing.T) {
	for _, c := range []struct{ wg, bc, bytes int }{{64, 8, 11072}, {128, 8, 13952}, {256, 4, 10496}} {
		if got := AttnTiledKeys(256, c.wg); got != c.bc {
			t.Errorf("AttnTiledKeys(256, %d) = %d, want %d", c.wg, got, c.bc)
		}
		k, err := Build(Key{Op: OpAttnPrefill, KV: gguf.TypeF16, HeadDim: 256, WG: c.wg, Coop: true})
		if err != nil {
			t.Fatalf("WG %d: %v", c.wg, err)
		}
		if k.WorkgroupBytes != c.bytes || k.WorkgroupBytes > maxWorkgroupBytes {
			t.Errorf("WG %d: %d bytes of workgroup memory, want %d", c.wg, k.WorkgroupBytes, c.bytes)
		}
	}
	for _, k := range []Key{
		{Op: OpAttnPrefill, KV: gguf.TypeF16, HeadDim: 256, WG: 128, TK: 12, Coop: true},
		{Op: OpAttnPrefill, KV: gguf.TypeF16, HeadDim: 256, WG: 256, TK: 8, Coop: true},
		{Op: OpAttnPrefill, KV: gguf.TypeF16, HeadDim: 192, WG: 128, Coop: true},
	} {
		if _, err := Build(k); err == nil {
			t.Errorf("Build(%v) accepted", k)
		}
	}
}
