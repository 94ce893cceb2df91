// Package gguf reads, writes, dequantizes and quantizes GGUF model files
// (v2 and v3), validating untrusted input as it goes.
//
// # Reading
//
// Open parses a file from any io.ReaderAt (an os.File, an HTTP range
// source, an OPFS handle); OpenPath opens one from disk and Close releases
// it. Only the header, metadata and tensor infos are read; tensor data is
// read on demand:
//
//	f, err := gguf.OpenPath("model.gguf")
//	n, ok := f.Uint("{arch}.block_count")      // "{arch}." = general.architecture
//	toks, ok := f.Strings("tokenizer.ggml.tokens")
//	ti, ok := f.Tensor("token_embd.weight")     // Name, Type, Ne (Ne[0] = row length), Offset, Size
//	raw, err := f.ReadTensor(ti)                // all bytes at once
//	err = f.StreamTensor(ti, buf, func(off int64, chunk []byte) error { … }) // len(buf) at a time
//
// File exposes Version, Alignment, DataOffset, KV (ordered key/value
// pairs) and Tensors. Typed accessors return (value, ok): String, Uint
// (any unsigned or non-negative integer), Int, Float (float32/64), Bool,
// Strings, Ints (any integer array as []int64), Floats ([]float32), Value.
//
// A metadata Value has a Type (ValueUint8 … ValueFloat64) and its Go value
// in V: a scalar (uint8 … float64, bool, string), a typed slice for an
// array of scalars ([]uint32, []string, …, Elem gives the element type),
// or []Value for an array of arrays.
//
// # Bad input
//
// Every count, length, offset and dimension is checked against the bytes
// that remain and against overflow before anything is allocated. Malformed
// input gives a *FormatError naming the field and byte offset, wrapping a
// sentinel (ErrMagic, ErrVersion, ErrTruncated, ErrTooLarge, ErrValueType,
// ErrNesting, ErrDuplicateKey, ErrAlignment, ErrTensorType, ErrDims,
// ErrBlockSize, ErrOverflow, ErrDuplicateTensor, ErrMisaligned,
// ErrTensorBounds, ErrOverlap, ErrSplit, ErrNameLength) for errors.Is.
//
// # Split models
//
// OpenSplit joins the shards of a model split by llama-gguf-split
// (PREFIX-00001-of-0000N.gguf, keys split.count, split.no,
// split.tensors.count) into one File: metadata of shard 0, tensors of all
// shards, TensorInfo.Split naming the shard holding the data. SplitPaths
// finds the sibling shard names from the first one; OpenSplitPath opens
// them from disk.
//
// # Writing
//
// Write writes a GGUF v3 file from ordered KV pairs (build values with
// ValueOf) and TensorData (name, type, ne, raw bytes), padding each
// tensor to the alignment (general.alignment or 32). For data too large to
// hold at once, NewWriter writes the header and its Write method takes
// tensor bytes in order; Close checks completeness. Re-writing a file read
// with Open reproduces it byte for byte.
//
// # Types and dequantization
//
// GGMLType describes every ggml type id (BlockSize, TypeSize, RowBytes).
// Dequantize / DequantizeInto turn raw tensor bytes into float32;
// Quantize encodes float32 into the quantized formats.
package gguf
