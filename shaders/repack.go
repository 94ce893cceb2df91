package shaders

import (
	"fmt"
	"strings"

	"github.com/webgguf/webgguf/gguf"
)

// RepackParams: rewrite Chunks chunks of 8 blocks of the weight bound as w,
// from ggml block order to the packed layout (Pack), in place. Shape: N =
// Chunks. Bindings: params, w (read-write). Key: Op OpRepack, Weight (a
// PackedTypes format), WG (default 64), and Ragged for ragged rows (see
// Ragged): then each row is PerRow chunks (the first of 4 blocks) of
// RowBytes bytes in all.
type RepackParams struct{ Chunks, PerRow, RowBytes uint32 }

// Bytes implements Params.
func (p RepackParams) Bytes() []byte { return pack(p.Chunks, p.PerRow, p.RowBytes) }

// RepackChunks is the number of chunks in rows×k weights of type t, the
// Chunks of RepackParams; false when the weight has no packed layout.
func RepackChunks(t gguf.GGMLType, rows, k int) (int, bool) {
	if !Packable(t, k) || rows <= 0 {
		return 0, false
	}
	return rows * len(rowSpans(t, k)), true
}

// RepackFor is the repack kernel's key and params for rows×k weights of
// type t; false when the weight has no packed layout.
func RepackFor(t gguf.GGMLType, rows, k int) (Key, RepackParams, bool) {
	n, ok := RepackChunks(t, rows, k)
	if !ok {
		return Key{}, RepackParams{}, false
	}
	rb, _ := t.RowBytes(int64(k))
	return Key{Op: OpRepack, Weight: t, Ragged: Ragged(t, k)},
		RepackParams{Chunks: uint32(n), PerRow: uint32(n / rows), RowBytes: uint32(rb)}, true
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
			if _, planes := packPlanes[k.Weight]; k.Ragged && !planes {
				return k, &KeyError{k, "Ragged", fmt.Sprintf("%s has no ragged packed layout", k.Weight)}
			}
			return clearUnused(k, func(c *Key) { c.Weight, c.Ragged = k.Weight, k.Ragged }), nil
		},
		derive: func(d *tmplData) {
			d.ChunkWords = packChunk * d.Weight.TypeSize() / 4
			if d.Ragged {
				d.PackSrc = raggedSrcWGSL(d.Weight)
			} else {
				d.PackSrc = packSrcWGSL(d.Weight)
			}
		},
		layout: func(Key) []bind { return []bind{uni, rw("w")} },
		dispatch: func(k Key, s Shape) (uint32, uint32, uint32) {
			return spread(s.N) // one workgroup per chunk
		},
		wgBytes: func(d tmplData) int { return 4 * d.ChunkWords },
	}
}

// raggedSrcWGSL is the ragged repack kernel's map from byte o of a packed
// chunk of n blocks with lead l to its byte in the ggml chunk (planeSrc).
func raggedSrcWGSL(t gguf.GGMLType) string {
	planes := packPlanes[t]
	sc := planes[len(planes)-1]
	var sb strings.Builder
	fmt.Fprintf(&sb, "const TS: u32 = %du;\nconst TAILB: u32 = %du;\nconst CHB: u32 = %du;\n", t.TypeSize(), raggedHead*t.TypeSize(), packChunk*t.TypeSize())
	sb.WriteString("fn src_byte(o: u32, n: u32, l: u32) -> u32 {\n")
	fmt.Fprintf(&sb, "    if (o < l) {\n        return (o / %du) * TS + %du + o %% %du;\n    }\n    var r = o - l;\n", sc[1], sc[0], sc[1])
	for _, p := range planes[:len(planes)-1] {
		fmt.Fprintf(&sb, "    if (r < n * %du) {\n        return (r / %du) * TS + %du + r %% %du;\n    }\n    r -= n * %du;\n", p[1], p[1], p[0], p[1], p[1])
	}
	fmt.Fprintf(&sb, "    return (l / %du + r / %du) * TS + %du + r %% %du;\n}\n", sc[1], sc[1], sc[0], sc[1])
	return sb.String()
}
