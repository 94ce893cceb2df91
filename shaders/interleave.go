package shaders

import "fmt"

// The row-interleaved weight layout (Key.Interleave).
//
// Rows are taken in groups of il (the last group may be shorter, g rows);
// within a group, 16-byte vector v of row r moves to vector v·g + r of the
// group, so the group's rows lie side by side vector by vector. A matvec
// thread owning row r then reads its vectors g apart while the threads of
// a warp, owning consecutive rows, read one contiguous run: each warp load
// is coalesced without any thread reading another row's bytes, and no row
// needs a reduction across threads. The group keeps its bytes and its
// place (row offsets of group starts are unchanged), and the bytes inside
// a row keep their format's layout (packed or file order), so the format's
// unit dots read them through a different vector address only.

// Interleavable reports whether rows of rowBytes bytes can be interleaved:
// whole 16-byte vectors.
func Interleavable(rowBytes int) bool {
	return rowBytes > 0 && rowBytes%16 == 0
}

// Interleave returns raw (n rows of rowBytes bytes) in the row-interleaved
// layout of groups of il rows.
func Interleave(raw []byte, n, rowBytes, il int) ([]byte, error) {
	return interleave(raw, n, rowBytes, il, false)
}

// Deinterleave undoes Interleave.
func Deinterleave(raw []byte, n, rowBytes, il int) ([]byte, error) {
	return interleave(raw, n, rowBytes, il, true)
}

func interleave(raw []byte, n, rowBytes, il int, back bool) ([]byte, error) {
	if !Interleavable(rowBytes) || il < 1 || n < 0 || len(raw) != n*rowBytes {
		return nil, fmt.Errorf("shaders: interleave %d rows of %d bytes in groups of %d: %d bytes given (rows must be whole 16-byte vectors)", n, rowBytes, il, len(raw))
	}
	out := make([]byte, len(raw))
	nv := rowBytes / 16
	for r0 := 0; r0 < n; r0 += il {
		g := min(il, n-r0)
		base := r0 * rowBytes
		for r := 0; r < g; r++ {
			for v := 0; v < nv; v++ {
				lin := base + (r*nv+v)*16 // row order
				ix := base + (v*g+r)*16   // interleaved
				if back {
					copy(out[lin:lin+16], raw[ix:ix+16])
				} else {
					copy(out[ix:ix+16], raw[lin:lin+16])
				}
			}
		}
	}
	return out, nil
}
