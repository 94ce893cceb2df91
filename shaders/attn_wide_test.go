package shaders

import (
	"errors"
	"math"
	"testing"

	"github.com/webgguf/webgguf/gguf"
)

// TestAttnDecodeWide: the wide decode kernel (Coop with TK keys a tile,
// WG/TK threads a key) split + merge and one pass, with windows, soft-caps
// and rings, against the float64 reference on random data: partial tiles,
// splits shorter than a tile and empty splits, MQA and GQA.
func TestAttnDecodeWide(t *testing.T) {
	r := newRand(t)
	for f16, d := range gpus(t) {
		for _, kv := range []gguf.GGMLType{gguf.TypeF32, gguf.TypeF16} {
			for _, c := range []struct {
				D, L, ctx, splits, wg, tk, H, Hkv int
			}{
				{256, 150, 160, 4, 256, 64, 4, 1},  // Gemma 3 1B: partial last tile in each split
				{256, 3, 40, 8, 256, 64, 4, 1},     // splits shorter than a tile, empty ones
				{256, 300, 300, 1, 256, 64, 2, 1},  // one split, several tiles
				{128, 97, 129, 3, 256, 64, 6, 2},   // GQA, 4 threads a key
				{128, 200, 210, 2, 128, 16, 4, 2},  // 8 threads a key
				{64, 77, 100, 4, 128, 32, 4, 4},    // head size 64
				{256, 513, 520, 16, 256, 32, 2, 1}, // 8 threads a key at 256
			} {
				if !WideAttn(c.D, c.wg, c.tk) {
					t.Fatalf("case %+v: WideAttn refuses it", c)
				}
				q := randVec(r, c.H*c.D, 0.05, 2)
				kb, kd := randCache(r, kv, c.Hkv*c.ctx*c.D)
				vb, vd := randCache(r, kv, c.Hkv*c.ctx*c.D)
				scale := 1 / math.Sqrt(float64(c.D))
				want, tol := attnDecodeRef(q, kd, vd, c.H, c.Hkv, c.ctx, c.D, c.L, scale)
				key := Key{Op: OpAttnDecode, KV: kv, HeadDim: c.D, F16: f16, WG: c.wg, TK: c.tk, Coop: true}
				prm := AttnDecodeParams{Heads: uint32(c.H), KVHeads: uint32(c.Hkv), L: uint32(c.L), Ctx: uint32(c.ctx), Splits: uint32(c.splits), Scale: float32(scale)}
				part := launch(t, d, key, prm, Shape{Heads: c.H, Splits: c.splits}, f32Bytes(q), kb, vb, poison(4*c.H*c.splits*(c.D+2)))[3]
				mkey := Key{Op: OpAttnMerge, HeadDim: c.D, F16: f16}
				out := launch(t, d, mkey, AttnMergeParams{Heads: uint32(c.H), Splits: uint32(c.splits)}, Shape{Heads: c.H}, part, poison(4*c.H*c.D))[1]
				checkClose(t, name(key.String(), " L=", c.L, " splits=", c.splits), bytesF32(out), want, tol)

				key.NoSplit = true
				prm.Splits = 1
				direct := launch(t, d, key, prm, Shape{Heads: c.H, KVHeads: c.Hkv, Splits: 1}, f32Bytes(q), kb, vb, poison(4*c.H*c.D))[3]
				checkClose(t, name(key.String(), " L=", c.L), bytesF32(direct), want, tol)
			}
		}
	}
}

// TestAttnDecodeWideKeys: keys the wide kernel cannot divide evenly are
// typed errors naming TK.
func TestAttnDecodeWideKeys(t *testing.T) {
	for _, k := range []Key{
		{Op: OpAttnDecode, KV: gguf.TypeF16, HeadDim: 256, WG: 256, TK: 48, Coop: true},           // WG % TK
		{Op: OpAttnDecode, KV: gguf.TypeF16, HeadDim: 256, WG: 256, TK: 2, Coop: true},            // TK % 4
		{Op: OpAttnDecode, KV: gguf.TypeF16, HeadDim: 256, WG: 256, TK: 64},                       // no Coop
		{Op: OpAttnDecode, KV: gguf.TypeF16, HeadDim: 256, WG: 256, TK: 64, Coop: true, Group: 4}, // Group
		{Op: OpAttnDecode, KV: gguf.TypeF16, HeadDim: 256, WG: 32, TK: 8, Coop: true},             // D/4 > WG
	} {
		_, err := Build(k)
		var ke *KeyError
		if !errors.As(err, &ke) || ke.Field != "TK" && ke.Field != "Coop" {
			t.Errorf("%v: got %v, want a KeyError on TK", k, err)
		}
	}
}

// WideAttn never divides by zero: keys a tile above the threads, head
// sizes below 4 and zero threads are refused, not a panic (found by
// TestBuildRandomKeys).
func TestWideAttnEdges(t *testing.T) {
	for _, c := range []struct{ d, wg, tk int }{{256, 256, 512}, {2, 256, 16}, {0, 256, 16}, {256, 0, 16}, {256, 256, 0}, {64, 8, 4}} {
		if WideAttn(c.d, c.wg, c.tk) {
			t.Errorf("WideAttn(%d, %d, %d) = true", c.d, c.wg, c.tk)
		}
	}
	if !WideAttn(256, 256, 16) || !WideAttn(128, 128, 64) {
		t.Error("WideAttn refuses Gemma's shape")
	}
}
