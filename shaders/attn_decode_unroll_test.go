package shaders

import (
	"math"
	"testing"

	"github.com/webgguf/webgguf/gguf"
)

// attn_decode loads KU K pairs (8, 4, 2 or 1: the largest dividing
// HeadDim/2) and VU = 8 V rows a step, and attn_merge MU = 4 splits a step,
// each with a remainder loop. TestAttnDecode covers KU 8 and 4; here head
// sizes 36 (KU 2) and 34 (KU 1), with tiles of 70 keys (one full of 64, one
// of 6: VU steps and a remainder) and 5 and 7 splits (MU steps and a
// remainder), split + merge (also on a grid 3 splits wider than the step's)
// and one-pass, against the float64 attention.
func TestAttnDecodeUnrollRemainders(t *testing.T) {
	r := newRand(t)
	for f16, d := range gpus(t) {
		for _, kv := range []gguf.GGMLType{gguf.TypeF32, gguf.TypeF16} {
			for _, c := range []struct{ D, L, ctx, splits int }{{36, 70, 72, 5}, {34, 131, 140, 7}} {
				H, Hkv := 4, 2
				q := randVec(r, H*c.D, 0.05, 2)
				kb, kd := randCache(r, kv, Hkv*c.ctx*c.D)
				vb, vd := randCache(r, kv, Hkv*c.ctx*c.D)
				scale := 1 / math.Sqrt(float64(c.D))
				want, tol := attnDecodeRef(q, kd, vd, H, Hkv, c.ctx, c.D, c.L, scale)
				p := AttnDecodeParams{Heads: uint32(H), KVHeads: uint32(Hkv), L: uint32(c.L), Ctx: uint32(c.ctx), Splits: uint32(c.splits), Scale: float32(scale)}
				key := Key{Op: OpAttnDecode, KV: kv, HeadDim: c.D, F16: f16}
				part := launch(t, d, key, p, Shape{Heads: H, Splits: c.splits}, f32Bytes(q), kb, vb, poison(4*H*c.splits*(c.D+2)))[3]
				mkey := Key{Op: OpAttnMerge, HeadDim: c.D, F16: f16}
				out := launch(t, d, mkey, AttnMergeParams{Heads: uint32(H), Splits: uint32(c.splits)}, Shape{Heads: H}, part, poison(4*H*c.D))[1]
				checkClose(t, name(key.String(), " L=", c.L, " splits=", c.splits), bytesF32(out), want, tol)

				// A grid recorded for more splits than the step runs (the
				// runtime's wide split count): the extra columns write
				// nothing, so the partials past H×Splits stay poison.
				wide := launch(t, d, key, p, Shape{Heads: H, Splits: c.splits + 3}, f32Bytes(q), kb, vb, poison(4*H*(c.splits+3)*(c.D+2)))[3]
				for i, v := range bytesF32(wide)[H*c.splits*(c.D+2):] {
					if !math.IsNaN(float64(v)) {
						t.Fatalf("%v grid %d splits %d: partial %d past the step's splits = %g, want the NaN poison", key, c.splits+3, c.splits, H*c.splits*(c.D+2)+i, v)
					}
				}
				wout := launch(t, d, mkey, AttnMergeParams{Heads: uint32(H), Splits: uint32(c.splits)}, Shape{Heads: H}, wide, poison(4*H*c.D))[1]
				checkClose(t, name(key.String(), " L=", c.L, " splits=", c.splits, " grid +3"), bytesF32(wout), want, tol)

				p.Splits = 1
				nkey := Key{Op: OpAttnDecode, KV: kv, HeadDim: c.D, F16: f16, NoSplit: true}
				direct := launch(t, d, nkey, p, Shape{Heads: H, KVHeads: Hkv, Splits: 1}, f32Bytes(q), kb, vb, poison(4*H*c.D))[3]
				checkClose(t, name(nkey.String(), " L=", c.L), bytesF32(direct), want, tol)
			}
		}
	}
}
