// Package gguf reads, writes, dequantizes and quantizes GGUF model files
// (v2 and v3), validating untrusted input as it goes.
//
// # Reading
//
// Open parses a file from any io.ReaderAt (an os.File, an HTTP range
// source, an OPFS handle) through a 64 KiB read-ahead buffer; OpenPath
// opens one from disk and Close releases it. Only the header, metadata
// and tensor infos are read; tensor data is read on demand:
//
//	f, err := gguf.OpenPath("model.gguf")
//	n, ok := f.Uint("{arch}.block_count")      // "{arch}." = general.architecture
//	toks, ok := f.Strings("tokenizer.ggml.tokens")
//	ti, ok := f.Tensor("token_embd.weight")     // Name, Type, Ne (Ne[0] = row length), Offset, Size, Split
//	raw, err := f.ReadTensor(ti)                // all ti.Size bytes at once
//	err = f.StreamTensor(ti, buf, func(off int64, chunk []byte) error { … })
//
// File exposes Version (2 or 3), Alignment (general.alignment or
// DefaultAlignment = 32), DataOffset (start of the data section;
// TensorInfo.Offset is relative to it), KV (key/value pairs in file order)
// and Tensors (in file order). Typed accessors return (value, ok):
// String, Uint (any unsigned or non-negative integer as uint64), Int,
// Float (float32/64 as float64), Bool, Strings, Ints (any integer array as
// a fresh []int64), Floats (float32 array, shared; float64 converted),
// Value, Arch and Tensor. Keys starting with "{arch}." are resolved with
// general.architecture.
//
// StreamTensor reads a tensor len(buf) bytes at a time into the caller's
// buffer (a nil buf means DefaultChunkSize = 1 MiB) and calls fn with each
// chunk and its offset within the tensor; buf is reused, so fn copies what
// it keeps. Both readers re-check the range of the TensorInfo they get.
//
// A metadata Value has a Type (ValueUint8 … ValueFloat64, ValueArray) and
// its Go value in V: a scalar (uint8, int8, uint16, int16, uint32, int32,
// float32, bool, string, uint64, int64, float64), a typed slice of those
// for an array of scalars (Elem names the element type), or []Value for an
// array of arrays. Value has the same accessors as File (Uint, Int, Float,
// Bool, Str, Strings, Ints, Floats) plus Len. The strings of one string
// array share a single backing allocation.
//
// # Bad input
//
// A GGUF file is untrusted. Every count, length, offset and dimension is
// checked against the bytes that remain and against overflow before
// anything is allocated (an array of n elements needs n × its minimum
// element size; names are at most MaxNameLen bytes; tensors have 1 to
// MaxDims dimensions; arrays nest at most MaxNesting deep). Tensor data must
// be aligned, inside the file and not overlap another tensor; names and
// keys must be unique; general.alignment must be a power of two. Every
// failure is a *FormatError naming the field (e.g. `kv[3]
// "tokenizer.ggml.tokens"[1234]`, `tensor[7] "blk.0.attn_q.weight".ne[0]`)
// and its byte offset, wrapping a sentinel for errors.Is: ErrMagic,
// ErrVersion, ErrTruncated, ErrTooLarge, ErrValueType, ErrNesting,
// ErrDuplicateKey, ErrAlignment, ErrTensorType, ErrDims, ErrBlockSize,
// ErrOverflow, ErrDuplicateTensor, ErrMisaligned, ErrTensorBounds,
// ErrOverlap, ErrSplit, ErrNameLength (or an I/O error of the source).
// FuzzOpen checks that no input panics, that accepted tensors are
// readable, and that read→write→read→write is a fixed point.
//
// # Split models
//
// OpenSplit joins the shards of a model split like llama-gguf-split does
// (PREFIX-00001-of-0000N.gguf; keys split.no u16, split.count u16,
// split.tensors.count i32 in every shard; all other metadata in shard 0)
// into one File: metadata of shard 0, tensors of all shards in order,
// TensorInfo.Split naming the shard that holds the data; Splits counts
// them. A single file without split keys is accepted as is. SplitPath
// names shard i of n like llama.cpp's llama_split_path, SplitPaths lists
// all shard names from the first one, OpenSplitPath opens them from disk,
// and SplitKV returns the split keys for a writer of shards.
//
// # Writing
//
// Write writes a GGUF v3 file from KV pairs (in order; build values with
// ValueOf, which infers the GGUF type from the Go type) and TensorData
// (Name, Type, Ne, raw Data). Tensors are laid out in order, each at a
// multiple of the alignment (the alignment argument, else a
// general.alignment key in kv, else 32) and padded with zeros, as gguf-py
// and llama.cpp do; a file without tensors gets no padding. For data too
// large to hold at once, NewWriter(w, kv, infos, alignment) writes the
// header, its Write method takes the tensors' bytes in order in pieces of
// any size, Tensors returns the computed offsets and Close checks that
// every byte came. Re-writing any file read with Open (all fixtures
// included) reproduces it byte for byte.
//
// # Types and dequantization
//
// GGMLType describes every ggml type id (Traits, BlockSize, TypeSize,
// RowBytes, ParseType). Dequantize / DequantizeInto turn raw tensor bytes
// into float32 (CanDequantize lists the supported types); Quantize /
// QuantizeInto encode float32 rows into the quantized formats
// (CanQuantize); F16ToF32, F32ToF16, BF16ToF32 and F32ToBF16 convert
// half-precision values. Dequantization is bit-exact with ggml's and the
// quantizers write ggml's bytes (TestQuantizeMatchesGGML).
//
// The ternary types hold {-d, 0, +d}: TQ1_0 (base-3, five trits a byte,
// 1.69 bits a weight) and TQ2_0 (2 bits) with an f16 d per 256 weights, as
// ggml; and I2_S (type id 36, Microsoft BitNet's fork of ggml), 2 bits a
// weight in 128-element blocks of four interleaved 32-element groups with
// one f32 d per tensor in a 32-byte tail (TypeTraits.TensorExtra;
// TensorBytes gives a tensor's size, I2SScale reads d, I2S one element).
package gguf
