package shaders

import (
	"fmt"
	"strings"

	"github.com/webgguf/webgguf/gguf"
)

// The packed weight layout.
//
// A ggml block of q4_0 is 18 bytes (an f16 scale, then 16 bytes of quants)
// and of q8_0 34 bytes, so consecutive blocks start 2 bytes off the 4-byte
// grid in turn and no block's quants are 16-byte aligned: a warp whose
// threads each read one block strides 18 or 34 bytes per lane and needs
// five word loads and a funnel shift per 16 bytes of quants, which bounded
// the matvec at 37% (q4_0) and 52% (q8_0) of the H200's bandwidth
// (BENCH.md). Packed, every chunk of 8 consecutive blocks of a row is
// rewritten as planes: for each plane, the same byte range of block 0..7 in
// turn. The quants come first, 16-byte aligned (q4_0: 8×16 bytes of quants,
// then 8 f16 scales; q8_0: the low 16 quant bytes of each block, then the
// high 16, then the scales), so consecutive threads of a warp read
// consecutive 16-byte vectors with one load each. A chunk keeps its size
// (144 or 272 bytes) and its place, so row offsets, the tensor's size, row
// splits and the in-place GPU rewrite (OpRepack) all work unchanged; a row
// must hold whole chunks (Packable: K a multiple of 256).

// packChunk is the number of blocks in a packed chunk.
const packChunk = 8

// packPlanes lists, per format with a packed layout, the planes of a chunk
// as byte ranges {offset, length} within a ggml block.
var packPlanes = map[gguf.GGMLType][][2]int{
	gguf.TypeQ4_0: {{2, 16}, {0, 2}},
	gguf.TypeQ8_0: {{2, 16}, {18, 16}, {0, 2}},
}

// PackedTypes lists the weight formats that have a packed layout.
var PackedTypes = []gguf.GGMLType{gguf.TypeQ4_0, gguf.TypeQ8_0}

// Packable reports whether a weight of type t with rows of k elements is
// stored packed: its format has a packed layout and each row holds whole
// chunks. Host and kernels agree through this one rule.
func Packable(t gguf.GGMLType, k int) bool {
	_, ok := packPlanes[t]
	return ok && k > 0 && k%(packChunk*t.BlockSize()) == 0
}

// LayoutError reports bytes that Pack or Unpack cannot convert.
type LayoutError struct {
	Type   gguf.GGMLType
	K      int
	Reason string
}

// Error names the format, the row length and the reason.
func (e *LayoutError) Error() string {
	return fmt.Sprintf("shaders: packed layout of %s rows of %d: %s", e.Type, e.K, e.Reason)
}

// chunkBytes checks t, k and n bytes of rows and returns the chunk size.
func chunkBytes(t gguf.GGMLType, k, n int) (int, error) {
	if !Packable(t, k) {
		return 0, &LayoutError{t, k, "no packed layout (format without one, or K not a multiple of 256)"}
	}
	rb, _ := t.RowBytes(int64(k))
	if n%int(rb) != 0 {
		return 0, &LayoutError{t, k, fmt.Sprintf("%d bytes are not whole rows of %d", n, rb)}
	}
	return packChunk * t.TypeSize(), nil
}

// packSrc returns, for each byte of a packed chunk, the byte of the ggml
// chunk it comes from.
func packSrc(t gguf.GGMLType) []int {
	ts := t.TypeSize()
	var src []int
	for _, p := range packPlanes[t] {
		for j := 0; j < packChunk; j++ {
			for i := 0; i < p[1]; i++ {
				src = append(src, j*ts+p[0]+i)
			}
		}
	}
	return src
}

// Pack rewrites rows of type t (k elements each) from ggml block order to
// the packed layout; Unpack is its inverse. The GPU does the same rewrite
// in place (OpRepack); these are its reference and serve tools that read
// weights back.
func Pack(t gguf.GGMLType, k int, raw []byte) ([]byte, error) {
	return permute(t, k, raw, true)
}

// Unpack rewrites packed rows back to ggml block order.
func Unpack(t gguf.GGMLType, k int, packed []byte) ([]byte, error) {
	return permute(t, k, packed, false)
}

func permute(t gguf.GGMLType, k int, in []byte, pack bool) ([]byte, error) {
	cb, err := chunkBytes(t, k, len(in))
	if err != nil {
		return nil, err
	}
	src := packSrc(t)
	out := make([]byte, len(in))
	for c := 0; c < len(in); c += cb {
		for o, s := range src {
			if pack {
				out[c+o] = in[c+s]
			} else {
				out[c+s] = in[c+o]
			}
		}
	}
	return out, nil
}

// packSrcWGSL is the repack kernel's map from a packed chunk's byte o to
// its source byte in the ggml chunk: one branch per plane.
func packSrcWGSL(t gguf.GGMLType) string {
	var sb strings.Builder
	sb.WriteString("fn src_byte(o: u32) -> u32 {\n")
	ts, start := t.TypeSize(), 0
	planes := packPlanes[t]
	for i, p := range planes {
		end := start + packChunk*p[1]
		body := fmt.Sprintf("((o - %du) / %du) * %du + %du + (o - %du) %% %du", start, p[1], ts, p[0], start, p[1])
		if i == len(planes)-1 {
			fmt.Fprintf(&sb, "    return %s;\n", body)
		} else {
			fmt.Fprintf(&sb, "    if (o < %du) {\n        return %s;\n    }\n", end, body)
		}
		start = end
	}
	sb.WriteString("}\n")
	return sb.String()
}
