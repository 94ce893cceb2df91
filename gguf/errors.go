package gguf

import (
	"errors"
	"fmt"
)

// FormatError reports malformed or unsupported GGUF input. Offset is the
// byte offset (within the file, or within the shard for split models) where
// the offending field starts; Field names it, e.g. `kv[3] "general.name"`
// or `tensor[7].ne[1]`. Err is one of the sentinel errors below (test with
// errors.Is) or an I/O error from the underlying reader.
type FormatError struct {
	Offset int64
	Field  string
	Err    error
}

// Error formats the error as "gguf: FIELD at byte OFFSET: cause".
func (e *FormatError) Error() string {
	return fmt.Sprintf("gguf: %s at byte %d: %v", e.Field, e.Offset, e.Err)
}

// Unwrap returns the sentinel or I/O error.
func (e *FormatError) Unwrap() error { return e.Err }

// Sentinel errors carried by FormatError.
var (
	// ErrMagic: the file does not start with "GGUF".
	ErrMagic = errors.New("not a GGUF file (bad magic)")
	// ErrVersion: the format version is not 2 or 3 (or the file is big-endian).
	ErrVersion = errors.New("unsupported GGUF version")
	// ErrTruncated: the file ends inside a field.
	ErrTruncated = errors.New("unexpected end of file")
	// ErrTooLarge: a count or length cannot fit in the bytes that remain.
	ErrTooLarge = errors.New("count or length exceeds remaining bytes")
	// ErrValueType: a metadata value type id is unknown.
	ErrValueType = errors.New("unknown metadata value type")
	// ErrNesting: arrays are nested deeper than MaxNesting.
	ErrNesting = errors.New("arrays nested too deeply")
	// ErrDuplicateKey: a metadata key appears twice.
	ErrDuplicateKey = errors.New("duplicate metadata key")
	// ErrAlignment: general.alignment is not a non-zero power of two (or not an integer).
	ErrAlignment = errors.New("invalid alignment")
	// ErrTensorType: a tensor's ggml type id is unknown.
	ErrTensorType = errors.New("unknown ggml tensor type")
	// ErrDims: a tensor has more than MaxDims dimensions or a bad dimension.
	ErrDims = errors.New("invalid tensor dimensions")
	// ErrBlockSize: a tensor's row length is not a multiple of its type's block size.
	ErrBlockSize = errors.New("row length not a multiple of the block size")
	// ErrOverflow: a size computation overflows int64.
	ErrOverflow = errors.New("size overflows")
	// ErrDuplicateTensor: two tensors have the same name.
	ErrDuplicateTensor = errors.New("duplicate tensor name")
	// ErrMisaligned: a tensor's data offset is not a multiple of the alignment.
	ErrMisaligned = errors.New("tensor data offset not aligned")
	// ErrTensorBounds: a tensor's data lies (partly) outside the file.
	ErrTensorBounds = errors.New("tensor data outside the file")
	// ErrOverlap: two tensors' data ranges overlap.
	ErrOverlap = errors.New("tensor data overlaps another tensor")
	// ErrSplit: split-model shards are inconsistent (count, index, tensor total).
	ErrSplit = errors.New("inconsistent split model")
	// ErrNameLength: a key or tensor name is longer than MaxNameLen.
	ErrNameLength = errors.New("name too long")
)

func ferr(off int64, field string, err error) error {
	return &FormatError{Offset: off, Field: field, Err: err}
}
