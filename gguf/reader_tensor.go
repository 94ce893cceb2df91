package gguf

import (
	"fmt"
	"math"
	"sort"
	"strconv"
)

// readTensorInfo reads one tensor info and checks its name, dimensions,
// type and byte size; infoOff receives the offset of its offset field so
// that data-range errors found later can point at it.
func readTensorInfo(b *breader, i int, ti *TensorInfo, infoOff *int64) error {
	name, err := b.str(MaxNameLen, "")
	if err != nil {
		return prefix(err, "tensor["+strconv.Itoa(i)+"].name")
	}
	ti.Name = name
	if err := readTensorShape(b, ti, infoOff); err != nil {
		// Named only on error, like readKV.
		return prefix(err, "tensor["+strconv.Itoa(i)+"] "+quoteName(name))
	}
	return nil
}

// readTensorShape reads a tensor info's dimensions, type and offset; its
// errors name fields relative to the tensor (".ne[1]").
func readTensorShape(b *breader, ti *TensorInfo, infoOff *int64) error {
	at := b.off()
	nd, err := b.u32(".n_dims")
	if err != nil {
		return err
	}
	if nd == 0 || nd > MaxDims {
		return ferr(at, ".n_dims", fmt.Errorf("%w: %d dimensions (1..%d allowed)", ErrDims, nd, MaxDims))
	}
	ti.Ne = make([]uint64, nd)
	dimOff := b.off()
	n := uint64(1)
	for j := range ti.Ne {
		d, err := b.u64(".ne")
		if err != nil {
			return err
		}
		if d > math.MaxInt64 {
			return ferr(dimOff+8*int64(j), fmt.Sprintf(".ne[%d]", j), fmt.Errorf("%w: %d", ErrDims, d))
		}
		if d != 0 && n > math.MaxInt64/d {
			return ferr(dimOff+8*int64(j), fmt.Sprintf(".ne[%d]", j), ErrOverflow)
		}
		n *= d
		ti.Ne[j] = d
	}
	at = b.off()
	t, err := b.u32(".type")
	if err != nil {
		return err
	}
	ti.Type = GGMLType(t)
	tt, ok := ti.Type.Traits()
	if !ok {
		return ferr(at, ".type", fmt.Errorf("%w: %d", ErrTensorType, t))
	}
	if ti.Ne[0]%uint64(tt.BlockSize) != 0 {
		return ferr(dimOff, ".ne[0]", fmt.Errorf("%w: %d is not a multiple of %d (%s)", ErrBlockSize, ti.Ne[0], tt.BlockSize, ti.Type))
	}
	// Bytes = n / block × type size (+ the per-tensor tail of I2_S);
	// n/block is exact because ne[0] is a multiple of the block size.
	blocks := n / uint64(tt.BlockSize)
	if blocks > uint64(math.MaxInt64-tt.TensorExtra)/uint64(tt.TypeSize) {
		return ferr(dimOff, ".ne", ErrOverflow)
	}
	ti.Size = int64(blocks*uint64(tt.TypeSize)) + int64(tt.TensorExtra)
	*infoOff = b.off()
	ti.Offset, err = b.u64(".offset")
	return err
}

// checkData checks every tensor's data range: aligned, inside the file,
// and not overlapping another tensor.
func (f *File) checkData(size int64, infoOffs []int64) error {
	field := func(i int) string { return fmt.Sprintf("tensor[%d] %q.offset", i, f.Tensors[i].Name) }
	order := make([]int, len(f.Tensors))
	for i := range f.Tensors {
		ti := &f.Tensors[i]
		order[i] = i
		if ti.Offset%uint64(f.Alignment) != 0 {
			return ferr(infoOffs[i], field(i), fmt.Errorf("%w: %d is not a multiple of %d", ErrMisaligned, ti.Offset, f.Alignment))
		}
		if ti.Offset > uint64(size) || f.DataOffset > size-int64(ti.Offset) || ti.Size > size-f.DataOffset-int64(ti.Offset) {
			return ferr(infoOffs[i], field(i), fmt.Errorf("%w: [%d, +%d) past data start %d in a %d-byte file", ErrTensorBounds, ti.Offset, ti.Size, f.DataOffset, size))
		}
	}
	sort.Slice(order, func(a, b int) bool { return f.Tensors[order[a]].Offset < f.Tensors[order[b]].Offset })
	for k := 1; k < len(order); k++ {
		prev, cur := &f.Tensors[order[k-1]], &f.Tensors[order[k]]
		if prev.Offset+uint64(prev.Size) > cur.Offset {
			return ferr(infoOffs[order[k]], field(order[k]), fmt.Errorf("%w %q", ErrOverlap, prev.Name))
		}
	}
	return nil
}
