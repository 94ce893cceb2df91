package gguf

import (
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"strconv"
)

// Limits on untrusted input beyond the file-size checks.
const (
	// DefaultAlignment is the data alignment when general.alignment is absent.
	DefaultAlignment = 32
	// MaxDims is the most dimensions a tensor may have (GGML_MAX_DIMS).
	MaxDims = 4
	// MaxNesting is the deepest array nesting accepted (1 = a plain array).
	MaxNesting = 8
	// MaxNameLen bounds metadata keys and tensor names in bytes.
	MaxNameLen = 1 << 16
)

const ggufMagic = 0x46554747 // "GGUF" little-endian

// maxHint caps the capacity allocated ahead from a claimed count.
const maxHint = 64

// File is a parsed GGUF file (or a split model seen as one, see OpenSplit).
// Its exported fields are read-only after Open; its methods may be called
// concurrently when the underlying io.ReaderAt allows it (os.File does).
type File struct {
	// Version is the GGUF format version (2 or 3).
	Version uint32
	// Alignment is general.alignment, or DefaultAlignment.
	Alignment int64
	// DataOffset is where the tensor data section starts (of the first
	// shard, for split models); TensorInfo.Offset is relative to it.
	DataOffset int64
	// KV holds the metadata in file order (of the first shard, for splits).
	KV []KV
	// Tensors holds the tensor infos in file order (shard by shard).
	Tensors []TensorInfo

	kvIndex map[string]int
	tIndex  map[string]int
	shards  []shard
	closers []io.Closer
}

// TensorInfo describes one tensor. Ne[0] is the contiguous row length, as
// in ggml; Offset is relative to the data section of the shard Split.
type TensorInfo struct {
	Name   string
	Type   GGMLType
	Ne     []uint64
	Offset uint64
	Size   int64 // bytes of data
	Split  int   // index of the shard that holds the data; 0 unless split
}

// NElements returns the number of elements (product of Ne).
func (t *TensorInfo) NElements() int64 {
	n := int64(1)
	for _, d := range t.Ne {
		n *= int64(d)
	}
	return n
}

type shard struct {
	r          io.ReaderAt
	size       int64
	dataOffset int64
}

// Open parses the GGUF header, metadata and tensor infos of the size-byte
// source r and validates them (see FormatError). Tensor data is read later,
// on demand, through ReadTensor or StreamTensor.
func Open(r io.ReaderAt, size int64) (*File, error) {
	if size < 0 {
		return nil, ferr(0, "size", ErrTooLarge)
	}
	f, err := parse(newBreader(r, size))
	if err != nil {
		return nil, err
	}
	f.shards = []shard{{r: r, size: size, dataOffset: f.DataOffset}}
	return f, nil
}

// OpenPath opens and parses the file at path; Close releases it.
func OpenPath(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	f, err := Open(fh, st.Size())
	if err != nil {
		fh.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f.closers = []io.Closer{fh}
	return f, nil
}

// Close closes the files opened by OpenPath or OpenSplitPath; it is a no-op
// for a File made by Open or OpenSplit.
func (f *File) Close() error {
	var first error
	for _, c := range f.closers {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	f.closers = nil
	return first
}

func parse(b *breader) (*File, error) {
	magic, err := b.u32("magic")
	if err != nil {
		return nil, err
	}
	if magic != ggufMagic {
		return nil, ferr(0, "magic", ErrMagic)
	}
	version, err := b.u32("version")
	if err != nil {
		return nil, err
	}
	if version != 2 && version != 3 {
		if r := bits.ReverseBytes32(version); r == 2 || r == 3 {
			return nil, ferr(4, "version", fmt.Errorf("%w: %d (big-endian files are not supported)", ErrVersion, bits.ReverseBytes32(version)))
		}
		return nil, ferr(4, "version", fmt.Errorf("%w: %d", ErrVersion, version))
	}
	// Minimum encoded sizes: a tensor info is a name length, n_dims, one
	// dimension, type and offset; a KV is a key length, a type and a byte.
	nTensors, err := b.count(8+4+8+4+8, "tensor_count")
	if err != nil {
		return nil, err
	}
	nKV, err := b.count(8+4+1, "kv_count")
	if err != nil {
		return nil, err
	}
	// The counts are bounded by the file size but are still claims: the
	// maps and the KV slice start at most maxHint entries and grow as
	// entries really parse, so a small file claiming 5 000 keys does not
	// build a 5 000-entry map before its second key fails.
	f := &File{Version: version, Alignment: DefaultAlignment, kvIndex: make(map[string]int, min(nKV, maxHint))}
	f.KV = make([]KV, 0, min(nKV, maxHint))
	alignAt := int64(0)
	for i := 0; i < nKV; i++ {
		at := b.off()
		kv, err := readKV(b, i)
		if err != nil {
			return nil, err
		}
		if _, dup := f.kvIndex[kv.Key]; dup {
			return nil, ferr(at, fmt.Sprintf("kv[%d] %q", i, kv.Key), ErrDuplicateKey)
		}
		if kv.Key == "general.alignment" {
			alignAt = at
		}
		f.kvIndex[kv.Key] = len(f.KV)
		f.KV = append(f.KV, kv)
	}
	if v, ok := f.kvIndex["general.alignment"]; ok {
		a, isInt := f.KV[v].Value.Uint()
		if !isInt || a == 0 || a&(a-1) != 0 || a > 1<<30 {
			return nil, ferr(alignAt, "general.alignment", fmt.Errorf("%w: %v", ErrAlignment, f.KV[v].Value.V))
		}
		f.Alignment = int64(a)
	}
	infoOffs := make([]int64, nTensors)
	f.Tensors = make([]TensorInfo, nTensors)
	f.tIndex = make(map[string]int, min(nTensors, maxHint))
	for i := range f.Tensors {
		ti := &f.Tensors[i]
		at := b.off()
		if err := readTensorInfo(b, i, ti, &infoOffs[i]); err != nil {
			return nil, err
		}
		if _, dup := f.tIndex[ti.Name]; dup {
			return nil, ferr(at, fmt.Sprintf("tensor[%d] %q", i, ti.Name), ErrDuplicateTensor)
		}
		f.tIndex[ti.Name] = i
	}
	end := b.off()
	f.DataOffset = (end + f.Alignment - 1) / f.Alignment * f.Alignment
	if err := f.checkData(b.size, infoOffs); err != nil {
		return nil, err
	}
	return f, nil
}

// readKV reads one key-value pair. Field names for errors are built only
// on error (see prefix): quoting every key up front cost a fuzz input with
// long keys more than parsing it.
func readKV(b *breader, i int) (KV, error) {
	key, err := b.str(MaxNameLen, "")
	if err != nil {
		return KV{}, prefix(err, "kv["+strconv.Itoa(i)+"].key")
	}
	at := b.off()
	t, err := b.u32(".type")
	if err == nil && !ValueType(t).valid() {
		err = ferr(at, ".type", fmt.Errorf("%w: %d", ErrValueType, t))
	}
	var v Value
	if err == nil {
		v, err = readValue(b, ValueType(t), 0, "")
	}
	if err != nil {
		return KV{}, prefix(err, "kv["+strconv.Itoa(i)+"] "+quoteName(key))
	}
	return KV{Key: key, Value: v}, nil
}

// readValue reads one value of type t; depth counts enclosing arrays.
func readValue(b *breader, t ValueType, depth int, field string) (Value, error) {
	var v any
	var err error
	switch t {
	case ValueUint8:
		var x uint8
		x, err = b.u8(field)
		v = x
	case ValueInt8:
		var x uint8
		x, err = b.u8(field)
		v = int8(x)
	case ValueBool:
		var x uint8
		x, err = b.u8(field)
		v = x != 0
	case ValueUint16:
		var x uint16
		x, err = b.u16(field)
		v = x
	case ValueInt16:
		var x uint16
		x, err = b.u16(field)
		v = int16(x)
	case ValueUint32:
		var x uint32
		x, err = b.u32(field)
		v = x
	case ValueInt32:
		var x uint32
		x, err = b.u32(field)
		v = int32(x)
	case ValueFloat32:
		var x uint32
		x, err = b.u32(field)
		v = math.Float32frombits(x)
	case ValueUint64:
		var x uint64
		x, err = b.u64(field)
		v = x
	case ValueInt64:
		var x uint64
		x, err = b.u64(field)
		v = int64(x)
	case ValueFloat64:
		var x uint64
		x, err = b.u64(field)
		v = math.Float64frombits(x)
	case ValueString:
		v, err = b.str(0, field)
	case ValueArray:
		return readArray(b, depth+1, field)
	default:
		return Value{}, ferr(b.off(), field, fmt.Errorf("%w: %d", ErrValueType, uint32(t)))
	}
	if err != nil {
		return Value{}, err
	}
	return Value{Type: t, V: v}, nil
}
