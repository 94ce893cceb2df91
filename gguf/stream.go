package gguf

import (
	"errors"
	"fmt"
	"io"
)

// DefaultChunkSize is the chunk size StreamTensor uses when given no buffer:
// 1 MiB, the unit the browser loader copies from OPFS into GPU buffers.
const DefaultChunkSize = 1 << 20

// dataRange returns the shard and absolute file offset of ti's data,
// re-checking the range so that a caller-built TensorInfo cannot read
// outside the file.
func (f *File) dataRange(ti *TensorInfo) (shard, int64, error) {
	if ti == nil || ti.Split < 0 || ti.Split >= len(f.shards) {
		return shard{}, 0, errors.New("gguf: tensor does not belong to this file")
	}
	s := f.shards[ti.Split]
	if ti.Size < 0 || ti.Offset > uint64(s.size) || s.dataOffset > s.size-int64(ti.Offset) || ti.Size > s.size-s.dataOffset-int64(ti.Offset) {
		return shard{}, 0, ferr(s.dataOffset, fmt.Sprintf("tensor %q", ti.Name), ErrTensorBounds)
	}
	return s, s.dataOffset + int64(ti.Offset), nil
}

// ReadTensor reads a tensor's raw bytes (ti.Size of them) into a new slice.
func (f *File) ReadTensor(ti *TensorInfo) ([]byte, error) {
	s, off, err := f.dataRange(ti)
	if err != nil {
		return nil, err
	}
	out := make([]byte, ti.Size)
	if err := readFull(s.r, out, off, ti.Name); err != nil {
		return nil, err
	}
	return out, nil
}

// StreamTensor reads a tensor's bytes in order, len(buf) at a time, into
// buf, calling fn with each chunk's offset within the tensor; the last
// chunk may be shorter. buf is reused, so fn must copy what it keeps. A
// nil or empty buf means a fresh DefaultChunkSize buffer. An error from fn
// stops the stream and is returned as is.
func (f *File) StreamTensor(ti *TensorInfo, buf []byte, fn func(off int64, chunk []byte) error) error {
	s, base, err := f.dataRange(ti)
	if err != nil {
		return err
	}
	if len(buf) == 0 {
		buf = make([]byte, min(DefaultChunkSize, max(ti.Size, 1)))
	}
	for off := int64(0); off < ti.Size; {
		n := min(int64(len(buf)), ti.Size-off)
		chunk := buf[:n]
		if err := readFull(s.r, chunk, base+off, ti.Name); err != nil {
			return err
		}
		if err := fn(off, chunk); err != nil {
			return err
		}
		off += n
	}
	return nil
}

func readFull(r io.ReaderAt, p []byte, off int64, name string) error {
	n, err := r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = ErrTruncated
	}
	return ferr(off+int64(n), fmt.Sprintf("tensor %q data", name), err)
}
