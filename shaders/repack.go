package shaders

import (
	"fmt"

	"github.com/webgguf/webgguf/gguf"
)

// RepackParams: rewrite Chunks chunks of 8 blocks of the weight bound as w,
// from ggml block order to the packed layout (Pack), in place. Shape: N =
// Chunks. Bindings: params, w (read-write). Key: Op OpRepack, Weight (a
// PackedTypes format), WG (default 64).
type RepackParams struct{ Chunks uint32 }

// Bytes implements Params.
func (p RepackParams) Bytes() []byte { return pack(p.Chunks) }

// RepackChunks is the number of chunks in rows×k weights of type t, the
// Chunks of RepackParams; false when the weight has no packed layout.
func RepackChunks(t gguf.GGMLType, rows, k int) (int, bool) {
	if !Packable(t, k) || rows <= 0 {
		return 0, false
	}
	return rows * (k / t.BlockSize()) / packChunk, true
}

func init() {
	specs[OpRepack] = &opSpec{
		file: "repack.wgsl",
		resolve: func(k Key) (Key, error) {
			if !packedType(k.Weight) {
				return k, &KeyError{k, "Weight", fmt.Sprintf("%s has no packed layout", k.Weight)}
			}
			if err := defWG(&k, 64, 1); err != nil {
				return k, err
			}
			return clearUnused(k, func(c *Key) { c.Weight = k.Weight }), nil
		},
		derive: func(d *tmplData) {
			d.ChunkWords = packChunk * d.Weight.TypeSize() / 4
			d.PackSrc = packSrcWGSL(d.Weight)
		},
		layout: func(Key) []bind { return []bind{uni, rw("w")} },
		dispatch: func(k Key, s Shape) (uint32, uint32, uint32) {
			return spread(s.N) // one workgroup per chunk
		},
		wgBytes: func(d tmplData) int { return 4 * d.ChunkWords },
	}
}
