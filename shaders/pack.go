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
// (BENCH.md, "What limits it"). Packed, every chunk of 8 consecutive
// blocks of a row is rewritten as planes: for each plane, the same byte range of block 0..7 in
// turn. The quants come first, 16-byte aligned (q4_0: 8×16 bytes of quants,
// then 8 f16 scales; q8_0: the low 16 quant bytes of each block, then the
// high 16, then the scales), so consecutive threads of a warp read
// consecutive 16-byte vectors with one load each. A chunk keeps its size
// (144 or 272 bytes) and its place, so row offsets, the tensor's size, row
// splits and the in-place GPU rewrite (OpRepack) all work unchanged; a row
// must hold whole chunks (Packable: K a multiple of 8 blocks, 256 elements
// for q4_0/q8_0).
//
// q6_K (210-byte blocks, so nothing 16-byte aligned in file order; its unit
// dot took four misaligned 16-byte reads, 20 word loads, and three more
// for scales and d) packs into per-unit planes of its low nibbles, its high
// bit pairs, its scales and d (q6KSrc), moving 2-bit fields: a chunk of 8
// blocks is 1680 bytes, a multiple of 16, so rows of K a multiple of 2048
// pack.

// packChunk is the number of blocks in a packed chunk.
const packChunk = 8

// packPlanes lists, per format with a byte-plane packed layout, the planes
// of a chunk as byte ranges {offset, length} within a ggml block.
var packPlanes = map[gguf.GGMLType][][2]int{
	gguf.TypeQ4_0: {{2, 16}, {0, 2}},
	gguf.TypeQ8_0: {{2, 16}, {18, 16}, {0, 2}},
}

// A fieldLayout is a packed layout that moves fields narrower than a byte:
// src maps field o of a packed chunk (bits o·bits .. +bits) to the field
// of the ggml chunk it comes from, and wgsl is the same map as the repack
// kernel's src_field.
type fieldLayout struct {
	bits int
	src  func(o int) int
	wgsl string
}

// packFields holds the formats whose packed layout moves sub-byte fields.
var packFields = map[gguf.GGMLType]fieldLayout{
	gguf.TypeQ6_K: {2, q6KSrc, q6KSrcWGSL},
}

// The packed q6_K chunk (8 blocks, 1680 bytes; unit U = 8·block + sub-block
// is 32 elements l = 0..31 of sub-block s = 4n + g):
//
//	[0, 1024)     unit U's low 4 bits at 16U: byte i holds element i (low
//	              nibble) and element 16 + i (high nibble), as packed q4_0;
//	[1024, 1536)  unit U's high 2 bits at 1024 + 8U: element l at byte
//	              4(l/16) + l%4, bit pair (l/4)%4, so word l/16 shifted by
//	              2·((l/4)%4) gives the lanes of x[4k..4k+3];
//	[1536, 1664)  unit U's two int8 scales (elements 0-15, 16-31) at 1536 + 2U;
//	[1664, 1680)  the 8 f16 d.
//
// Fields are bit pairs (crumbs): field o is bits 2(o%4) of byte o/4.
func q6KSrc(o int) int {
	ob, c := o>>2, o&3
	var u, srcByte, crumb int
	switch {
	case ob < 1024:
		u = ob >> 4
		l := ob&15 + 16*(c>>1)
		g := u & 3
		srcByte, crumb = 64*(u>>2&1)+32*(g&1)+l, 2*(g>>1)+c&1
	case ob < 1536:
		q := ob - 1024
		u = q >> 3
		l := 16*(q>>2&1) + 4*c + q&3
		srcByte, crumb = 128+32*(u>>2&1)+l, u&3
	case ob < 1664:
		q := ob - 1536
		u = q >> 1
		srcByte, crumb = 192+8*(u>>2&1)+2*(u&3)+q&1, c
	default:
		q := ob - 1664
		u = (q >> 1) << 3
		srcByte, crumb = 208+q&1, c
	}
	return 4*(210*(u>>3)+srcByte) + crumb
}

const q6KSrcWGSL = `const FB: u32 = 2u;
fn src_field(o: u32) -> u32 {
    let ob = o >> 2u;
    let c = o & 3u;
    if (ob < 1024u) {
        let u = ob >> 4u;
        let g = u & 3u;
        let sb = 210u * (u >> 3u) + 64u * ((u >> 2u) & 1u) + 32u * (g & 1u) + (ob & 15u) + 16u * (c >> 1u);
        return 4u * sb + 2u * (g >> 1u) + (c & 1u);
    }
    if (ob < 1536u) {
        let q = ob - 1024u;
        let u = q >> 3u;
        let sb = 210u * (u >> 3u) + 128u + 32u * ((u >> 2u) & 1u) + 16u * ((q >> 2u) & 1u) + 4u * c + (q & 3u);
        return 4u * sb + (u & 3u);
    }
    if (ob < 1664u) {
        let q = ob - 1536u;
        let u = q >> 1u;
        return 4u * (210u * (u >> 3u) + 192u + 8u * ((u >> 2u) & 1u) + 2u * (u & 3u) + (q & 1u)) + c;
    }
    let q = ob - 1664u;
    return 4u * (210u * (q >> 1u) + 208u + (q & 1u)) + c;
}
`

// PackedTypes lists the weight formats that have a packed layout.
var PackedTypes = []gguf.GGMLType{gguf.TypeQ4_0, gguf.TypeQ8_0, gguf.TypeQ6_K}

// A packed reader (dq/<type>p.wgsl) may hold, between these marker lines, a
// branch that reads rows in ggml order when they are not packed. A format
// needs it only in a kernel that also binds a format whose chunk holds fewer
// elements (q6_K: 2048; q4_0, q8_0: 256), in the fused QKV matvec: one
// Key.Packed then covers rows of K a multiple of 256 but not of 2048, where
// the smaller-chunk matrices are packed and the q6_K one is not. Elsewhere
// Key.Packed alone says that the rows are packed, and the branch (its
// registers: q6_K lm head 106.7 vs 118.7 µs on the H100) is cut out.
const (
	orderBranchStart = "// {ggml-order rows"
	orderBranchEnd   = "// ggml-order rows}"
)

// chunkElems is the number of elements in a packed chunk of format t.
func chunkElems(t gguf.GGMLType) int { return packChunk * t.BlockSize() }

// readerSource returns the packed reader src of format t for a kernel whose
// matrices are of formats ts: with its ggml-order branch where one of ts
// has a packed layout with smaller chunks, without it otherwise.
func readerSource(src string, t gguf.GGMLType, ts ...gguf.GGMLType) string {
	for _, o := range ts {
		if hasLayout(o) && chunkElems(o) < chunkElems(t) {
			return src
		}
	}
	var sb strings.Builder
	cut := false
	for _, line := range strings.SplitAfter(src, "\n") {
		switch strings.TrimSpace(line) {
		case orderBranchStart:
			cut = true
			continue
		case orderBranchEnd:
			cut = false
			continue
		}
		if !cut {
			sb.WriteString(line)
		}
	}
	return sb.String()
}

// hasLayout reports whether format t has a packed layout.
func hasLayout(t gguf.GGMLType) bool {
	_, planes := packPlanes[t]
	_, fields := packFields[t]
	return planes || fields
}

// Packable reports whether a weight of type t with rows of k elements is
// stored packed: its format has a packed layout and each row holds whole
// chunks, or, for the byte-plane formats (q4_0, q8_0), a ragged row: whole
// chunks after one chunk of 4 blocks (Ragged). Host and kernels agree
// through this one rule.
func Packable(t gguf.GGMLType, k int) bool {
	return hasLayout(t) && k > 0 && (k%chunkElems(t) == 0 || Ragged(t, k))
}

// Ragged reports whether rows of k elements of type t are packed as ragged
// rows: a byte-plane format (q4_0, q8_0) whose rows hold 8m+4 blocks (k =
// 128 mod 256: Gemma 3's 1152, Qwen2.5-0.5B's 896). Such a row starts with
// a chunk of 4 blocks, then whole chunks; its rows alternate between
// starting on and 8 bytes off the 16-byte grid, so each chunk puts as many
// scales first as its start is off the grid (its lead) and its quants stay
// 16-byte aligned. Kernels reading such rows are built with Key.Ragged.
func Ragged(t gguf.GGMLType, k int) bool {
	_, planes := packPlanes[t]
	return planes && k > 0 && k%chunkElems(t) == 4*t.BlockSize()
}

// raggedHead is the number of blocks in a ragged row's first chunk.
const raggedHead = 4

// A span is one packed chunk of a row: its byte offset in the row and its
// number of blocks.
type span struct{ off, n int }

// rowSpans lists the chunks of a packed row of k elements of type t.
func rowSpans(t gguf.GGMLType, k int) []span {
	nb, ts := k/t.BlockSize(), t.TypeSize()
	var sp []span
	off := 0
	if Ragged(t, k) {
		sp = append(sp, span{0, raggedHead})
		off, nb = raggedHead*ts, nb-raggedHead
	}
	for ; nb > 0; nb -= packChunk {
		sp = append(sp, span{off, packChunk})
		off += packChunk * ts
	}
	return sp
}

// planeSrc maps each byte o of a packed byte-plane chunk of n blocks whose
// start lies lead bytes before the 16-byte grid (0 or 8) to the byte of
// the ggml chunk it comes from: lead/2 scales, the quant planes, the other
// scales. With lead 0 and 8 blocks it is packSrc's map.
func planeSrc(t gguf.GGMLType, n, lead int) []int {
	ts := t.TypeSize()
	planes := packPlanes[t]
	sc := planes[len(planes)-1] // the scales plane, last
	var src []int
	scale := func(j int) {
		for i := 0; i < sc[1]; i++ {
			src = append(src, j*ts+sc[0]+i)
		}
	}
	for j := 0; j < lead/sc[1]; j++ {
		scale(j)
	}
	for _, p := range planes[:len(planes)-1] {
		for j := 0; j < n; j++ {
			for i := 0; i < p[1]; i++ {
				src = append(src, j*ts+p[0]+i)
			}
		}
	}
	for j := lead / sc[1]; j < n; j++ {
		scale(j)
	}
	return src
}

// chunkLead is the lead of a chunk starting at byte off: the bytes from
// there to the next 16-byte boundary.
func chunkLead(off int) int { return (16 - off%16) % 16 }

// PackedAgree reports whether rows of k elements of the formats ts are
// either all packed or all left in file order, among the formats that have
// a packed layout. A kernel reading several matrices (the fused QKV matvec
// and matmul) has one Key.Packed for all of them, so the runtime fuses
// matrices only where this holds.
func PackedAgree(k int, ts ...gguf.GGMLType) bool {
	n, packed := 0, 0
	for _, t := range ts {
		if hasLayout(t) {
			n++
			if Packable(t, k) {
				packed++
			}
		}
	}
	return packed == 0 || packed == n
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
		return 0, &LayoutError{t, k, "no packed layout (format without one, or K not a multiple of 8 blocks, or of 4 for q4_0 and q8_0)"}
	}
	rb, _ := t.RowBytes(int64(k))
	if n%int(rb) != 0 {
		return 0, &LayoutError{t, k, fmt.Sprintf("%d bytes are not whole rows of %d", n, rb)}
	}
	return packChunk * t.TypeSize(), nil
}

// packSrc returns the field width in bits and, for each field of a packed
// chunk, the field of the ggml chunk it comes from.
func packSrc(t gguf.GGMLType) (int, []int) {
	if f, ok := packFields[t]; ok {
		n := packChunk * t.TypeSize() * 8 / f.bits
		src := make([]int, n)
		for o := range src {
			src[o] = f.src(o)
		}
		return f.bits, src
	}
	ts := t.TypeSize()
	var src []int
	for _, p := range packPlanes[t] {
		for j := 0; j < packChunk; j++ {
			for i := 0; i < p[1]; i++ {
				src = append(src, j*ts+p[0]+i)
			}
		}
	}
	return 8, src
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
	out := make([]byte, len(in))
	if _, planes := packPlanes[t]; planes {
		// Byte planes, chunk by chunk of each row, with each chunk's lead
		// (its offset in the tensor: the kernels see rows at binding
		// offsets that are multiples of 256, so the same leads).
		rb, _ := t.RowBytes(int64(k))
		spans := rowSpans(t, k)
		maps := map[[2]int][]int{}
		for r := 0; r < len(in); r += int(rb) {
			for _, sp := range spans {
				c := r + sp.off
				lead := chunkLead(c)
				m, ok := maps[[2]int{sp.n, lead}]
				if !ok {
					m = planeSrc(t, sp.n, lead)
					maps[[2]int{sp.n, lead}] = m
				}
				for o, s := range m {
					if pack {
						out[c+o] = in[c+s]
					} else {
						out[c+s] = in[c+o]
					}
				}
			}
		}
		return out, nil
	}
	bits, src := packSrc(t)
	// Sub-byte fields: the map as byte pieces (runs of fields that stay
	// together within one source and one output byte), so a chunk costs a
	// shift, a mask and an OR per piece rather than per field.
	if !pack {
		inv := make([]int, len(src))
		for o, s := range src {
			inv[s] = o
		}
		src = inv
	}
	pieces := bytePieces(bits, src)
	for c := 0; c < len(in); c += cb {
		ch, oc := in[c:c+cb], out[c:c+cb]
		for _, p := range pieces {
			oc[p.dst] |= ch[p.src] >> p.sh & p.mask << p.dsh
		}
	}
	return out, nil
}

// A piece moves bits sh.. (mask) of source byte src to bit dsh of output
// byte dst.
type piece struct {
	dst, src      int32
	sh, dsh, mask uint8
}

// bytePieces turns a map of bits-wide fields (output field o from source
// field src[o]) into byte pieces.
func bytePieces(bits int, src []int) []piece {
	per := 8 / bits
	var ps []piece
	for o := 0; o < len(src); {
		n := 1
		for o%per+n < per && src[o+n] == src[o]+n && (src[o]+n)%per != 0 {
			n++
		}
		ps = append(ps, piece{dst: int32(o / per), src: int32(src[o] / per),
			sh: uint8(src[o] % per * bits), dsh: uint8(o % per * bits), mask: byte(1)<<(n*bits) - 1})
		o += n
	}
	return ps
}

// packSrcWGSL is the repack kernel's map from a packed chunk's field o to
// its source field in the ggml chunk (FB bits each): for byte planes one
// branch per plane.
func packSrcWGSL(t gguf.GGMLType) string {
	if f, ok := packFields[t]; ok {
		return f.wgsl
	}
	var sb strings.Builder
	sb.WriteString("const FB: u32 = 8u;\nfn src_field(o: u32) -> u32 {\n")
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
