package gguf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// TensorData is a tensor for Write: its name, type, shape (Ne[0] is the
// row length) and raw ggml-encoded bytes.
type TensorData struct {
	Name string
	Type GGMLType
	Ne   []uint64
	Data []byte
}

// Write writes a complete GGUF v3 file: kv in the given order, then the
// tensors, each starting at a multiple of alignment (0 means the value of
// a general.alignment key in kv, else DefaultAlignment).
func Write(w io.Writer, kv []KV, tensors []TensorData, alignment int) error {
	infos := make([]TensorInfo, len(tensors))
	for i, t := range tensors {
		infos[i] = TensorInfo{Name: t.Name, Type: t.Type, Ne: t.Ne}
	}
	gw, err := NewWriter(w, kv, infos, alignment)
	if err != nil {
		return err
	}
	for i, t := range tensors {
		if int64(len(t.Data)) != gw.infos[i].Size {
			return fmt.Errorf("gguf: write tensor %q: %d data bytes, its shape and type need %d", t.Name, len(t.Data), gw.infos[i].Size)
		}
		if _, err := gw.Write(t.Data); err != nil {
			return err
		}
	}
	return gw.Close()
}

// Writer streams a GGUF v3 file whose tensor data is too large to hold at
// once: NewWriter writes the header, Write takes the tensors' bytes in
// order (in any number of pieces; padding is inserted between tensors),
// Close checks that every byte came and writes the final padding.
type Writer struct {
	w         *bufio.Writer
	infos     []TensorInfo
	alignment int64
	cur       int   // tensor being written
	done      int64 // bytes of infos[cur] written
	err       error
}

// NewWriter validates kv and the tensor infos (Name, Type, Ne; Offset and
// Size are computed and returned by Tensors) and writes the header.
func NewWriter(w io.Writer, kv []KV, tensors []TensorInfo, alignment int) (*Writer, error) {
	a, err := writeAlignment(kv, alignment)
	if err != nil {
		return nil, err
	}
	gw := &Writer{alignment: a, infos: make([]TensorInfo, len(tensors))}
	seen := make(map[string]bool, len(tensors))
	var off uint64
	for i, t := range tensors {
		if seen[t.Name] {
			return nil, fmt.Errorf("gguf: write tensor %q: %w", t.Name, ErrDuplicateTensor)
		}
		seen[t.Name] = true
		size, err := tensorBytes(t)
		if err != nil {
			return nil, err
		}
		gw.infos[i] = TensorInfo{Name: t.Name, Type: t.Type, Ne: append([]uint64(nil), t.Ne...), Offset: off, Size: size}
		off += uint64(pad(size, a))
	}
	gw.w = bufio.NewWriterSize(w, writeBufSize(kv, gw.infos))
	keys := make(map[string]bool, len(kv))
	e := &enc{w: gw.w}
	e.u32(ggufMagic)
	e.u32(3)
	e.u64(uint64(len(tensors)))
	e.u64(uint64(len(kv)))
	for _, p := range kv {
		if keys[p.Key] {
			return nil, fmt.Errorf("gguf: write key %q: %w", p.Key, ErrDuplicateKey)
		}
		keys[p.Key] = true
		e.str(p.Key)
		e.u32(uint32(p.Value.Type))
		if err := e.value(p.Value, 0); err != nil {
			return nil, fmt.Errorf("gguf: write key %q: %w", p.Key, err)
		}
	}
	for _, t := range gw.infos {
		e.str(t.Name)
		e.u32(uint32(len(t.Ne)))
		for _, d := range t.Ne {
			e.u64(d)
		}
		e.u32(uint32(t.Type))
		e.u64(t.Offset)
	}
	if len(tensors) > 0 {
		// Like gguf-py, pad to the data section only when there is one, so
		// vocab-only files round-trip byte for byte.
		e.zeros(pad(e.n, a) - e.n)
	}
	if e.err != nil {
		return nil, e.err
	}
	return gw, nil
}

// Tensors returns the tensor infos with their computed offsets and sizes.
func (gw *Writer) Tensors() []TensorInfo { return gw.infos }

// Write appends tensor data, moving on to the next tensor (after padding)
// whenever one is complete. Writing more bytes than the tensors hold fails.
func (gw *Writer) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 && gw.err == nil {
		for gw.cur < len(gw.infos) && gw.done == gw.infos[gw.cur].Size {
			gw.finishTensor()
		}
		if gw.cur >= len(gw.infos) {
			gw.err = errors.New("gguf: write: more data than the tensors hold")
			break
		}
		n := min(int64(len(p)), gw.infos[gw.cur].Size-gw.done)
		_, gw.err = gw.w.Write(p[:n])
		gw.done += n
		written += int(n)
		p = p[n:]
	}
	return written, gw.err
}

func (gw *Writer) finishTensor() {
	size := gw.infos[gw.cur].Size
	e := &enc{w: gw.w}
	e.zeros(pad(size, gw.alignment) - size)
	gw.err = e.err
	gw.cur++
	gw.done = 0
}

// Close writes the last padding and flushes; it fails if tensors are
// missing data. It does not close the underlying writer.
func (gw *Writer) Close() error {
	for gw.err == nil && gw.cur < len(gw.infos) {
		if gw.done != gw.infos[gw.cur].Size {
			return fmt.Errorf("gguf: write: tensor %q got %d of %d bytes", gw.infos[gw.cur].Name, gw.done, gw.infos[gw.cur].Size)
		}
		gw.finishTensor()
	}
	if gw.err != nil {
		return gw.err
	}
	return gw.w.Flush()
}

func writeAlignment(kv []KV, alignment int) (int64, error) {
	a := int64(alignment)
	for _, p := range kv {
		if p.Key != "general.alignment" {
			continue
		}
		v, ok := p.Value.Uint()
		if !ok || v == 0 || v&(v-1) != 0 || v > 1<<30 {
			return 0, fmt.Errorf("gguf: write general.alignment %v: %w", p.Value.V, ErrAlignment)
		}
		if a != 0 && a != int64(v) {
			return 0, fmt.Errorf("gguf: write: alignment %d differs from general.alignment %d: %w", a, v, ErrAlignment)
		}
		a = int64(v)
	}
	if a == 0 {
		a = DefaultAlignment
	}
	if a < 0 || a&(a-1) != 0 || a > 1<<30 {
		return 0, fmt.Errorf("gguf: write alignment %d: %w", a, ErrAlignment)
	}
	return a, nil
}

// maxWriteBuf is the write buffer of a file of at least that size.
const maxWriteBuf = 1 << 20

// writeBufSize sizes the write buffer: maxWriteBuf, or a lower bound of
// the file's size when that is smaller (at least 4 KiB), so that writing a
// small file does not allocate and clear a megabyte. infos hold the
// tensors' sizes; strings count their bytes, arrays their minimum size.
func writeBufSize(kv []KV, infos []TensorInfo) int {
	n := int64(24) // magic, version, tensor and kv counts
	for _, p := range kv {
		n += 12 + int64(len(p.Key)) + minEncodedSize(p.Value)
		if n >= maxWriteBuf {
			return maxWriteBuf
		}
	}
	for _, t := range infos {
		n += 24 + int64(len(t.Name)) + 8*int64(len(t.Ne))
		if t.Size >= maxWriteBuf || n+t.Size >= maxWriteBuf {
			return maxWriteBuf
		}
		n += t.Size
	}
	return int(max(n, 4<<10))
}

// minEncodedSize is a lower bound of v's encoded payload: exact for
// scalars and strings, count × minimum element size for arrays.
func minEncodedSize(v Value) int64 {
	switch v.Type {
	case ValueString:
		s, _ := v.V.(string)
		return 8 + int64(len(s))
	case ValueArray:
		return 12 + int64(v.Len())*v.Elem.size()
	}
	return v.Type.size()
}

func tensorBytes(t TensorInfo) (int64, error) {
	if len(t.Ne) == 0 || len(t.Ne) > MaxDims {
		return 0, fmt.Errorf("gguf: write tensor %q: %w: %d dimensions", t.Name, ErrDims, len(t.Ne))
	}
	if len(t.Name) > MaxNameLen {
		return 0, fmt.Errorf("gguf: write tensor %q: %w", t.Name[:64], ErrNameLength)
	}
	n := uint64(1)
	for _, d := range t.Ne {
		if d > math.MaxInt64 || (d != 0 && n > math.MaxInt64/d) {
			return 0, fmt.Errorf("gguf: write tensor %q: %w", t.Name, ErrOverflow)
		}
		n *= d
	}
	if !t.Type.Valid() {
		return 0, fmt.Errorf("gguf: write tensor %q: %w: %d", t.Name, ErrTensorType, uint32(t.Type))
	}
	if _, ok := t.Type.RowBytes(int64(t.Ne[0])); !ok {
		return 0, fmt.Errorf("gguf: write tensor %q: %w", t.Name, ErrBlockSize)
	}
	tt, _ := t.Type.Traits()
	blocks := n / uint64(tt.BlockSize)
	if blocks > uint64(math.MaxInt64-tt.TensorExtra)/uint64(tt.TypeSize) {
		return 0, fmt.Errorf("gguf: write tensor %q: %w", t.Name, ErrOverflow)
	}
	return int64(blocks*uint64(tt.TypeSize)) + int64(tt.TensorExtra), nil
}

func pad(n, a int64) int64 { return (n + a - 1) / a * a }

// enc writes little-endian GGUF fields, remembering the first error and
// counting bytes (for the header padding).
type enc struct {
	w   io.Writer
	n   int64
	err error
	b   [8]byte
}

func (e *enc) write(p []byte) {
	if e.err != nil {
		return
	}
	var k int
	k, e.err = e.w.Write(p)
	e.n += int64(k)
}

func (e *enc) u8(v uint8)   { e.write([]byte{v}) }
func (e *enc) u16(v uint16) { binary.LittleEndian.PutUint16(e.b[:], v); e.write(e.b[:2]) }
func (e *enc) u32(v uint32) { binary.LittleEndian.PutUint32(e.b[:], v); e.write(e.b[:4]) }
func (e *enc) u64(v uint64) { binary.LittleEndian.PutUint64(e.b[:], v); e.write(e.b[:8]) }
func (e *enc) str(s string) { e.u64(uint64(len(s))); e.write([]byte(s)) }

func (e *enc) zeros(n int64) {
	var z [64]byte
	for n > 0 && e.err == nil {
		k := min(n, int64(len(z)))
		e.write(z[:k])
		n -= k
	}
}
