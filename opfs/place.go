package opfs

import (
	"fmt"

	"github.com/webgguf/webgguf/gguf"
)

// Chunk is one read and GPU write of a load: Len bytes at byte Src of the
// tensor go to plan buffer Buffer at Dst. Pad zero bytes follow so the write
// length is a multiple of 4 (WebGPU's rule); only a part's last chunk pads.
type Chunk struct {
	Src    uint64
	Len    int
	Buffer int
	Dst    uint64
	Pad    int
}

// Spec is the placement input for one tensor: its rows and row size, as
// webgpu.TensorSpec wants them.
func Spec(ti *gguf.TensorInfo) (rows, rowBytes uint64, err error) {
	if len(ti.Ne) == 0 {
		return 0, 0, fmt.Errorf("tensor %q has no dimensions", ti.Name)
	}
	rb, ok := ti.Type.RowBytes(int64(ti.Ne[0]))
	if !ok || rb <= 0 {
		return 0, 0, fmt.Errorf("tensor %q: row of %d %v elements is not whole blocks", ti.Name, ti.Ne[0], ti.Type)
	}
	rows = 1
	for _, d := range ti.Ne[1:] {
		if d != 0 && rows > (1<<62)/d {
			return 0, 0, fmt.Errorf("tensor %q: too many rows", ti.Name)
		}
		rows *= d
	}
	if rows*uint64(rb) != uint64(ti.Size) {
		return 0, 0, fmt.Errorf("tensor %q: %d rows of %d bytes is not its size %d", ti.Name, rows, rb, ti.Size)
	}
	return rows, uint64(rb), nil
}

// PartRange is a tensor part's span of the tensor's bytes and where it lives.
type PartRange struct {
	Start, End uint64 // [Start, End) within the tensor
	Buffer     int
	Offset     uint64
}

// EachChunk calls fn for the chunks of at most size bytes that copy a
// tensor's parts in order. Every write offset is the part's offset plus a
// multiple of size, so it stays 4-byte aligned when size is a multiple of 4.
func EachChunk(parts []PartRange, size int, fn func(Chunk) error) error {
	if size <= 0 || size%4 != 0 {
		return fmt.Errorf("chunk size %d is not a positive multiple of 4", size)
	}
	for _, p := range parts {
		for s := p.Start; s < p.End; s += uint64(size) {
			n := min(uint64(size), p.End-s)
			c := Chunk{Src: s, Len: int(n), Buffer: p.Buffer, Dst: p.Offset + (s - p.Start)}
			if s+n == p.End {
				c.Pad = int((4 - n%4) % 4)
			}
			if err := fn(c); err != nil {
				return err
			}
		}
	}
	return nil
}
