package gguf

import "math"

// A quantizer encodes whole blocks: len(src) is a multiple of the block
// size and dst has exactly the bytes those blocks need.
type quantizer func(dst []byte, src []float32)

// quantizers lists every type Quantize can produce. The block formats are
// ports of ggml's reference quantizers (quantize_row_*_ref), which is what
// llama-quantize runs when no importance matrix is given, so our bytes are
// the bytes llama.cpp writes for the same float32 input.
var quantizers = map[GGMLType]quantizer{
	TypeF32:    quantF32,
	TypeF16:    quantF16,
	TypeBF16:   quantBF16,
	TypeQ4_0:   quantQ4_0,
	TypeQ4_1:   quantQ4_1,
	TypeQ5_0:   quantQ5_0,
	TypeQ5_1:   quantQ5_1,
	TypeQ8_0:   quantQ8_0,
	TypeQ2_K:   quantQ2K,
	TypeQ3_K:   quantQ3K,
	TypeQ4_K:   quantQ4K,
	TypeQ5_K:   quantQ5K,
	TypeQ6_K:   quantQ6K,
	TypeIQ4_NL: quantIQ4NL,
	TypeIQ4_XS: quantIQ4XS,
	TypeTQ1_0:  quantTQ1_0,
	TypeTQ2_0:  quantTQ2_0,
	TypeI2_S:   quantI2S,
}

// CanQuantize reports whether Quantize supports type t.
func CanQuantize(t GGMLType) bool { _, ok := quantizers[t]; return ok }

// Quantize encodes src as type t (for I2_S, src is a whole tensor: its
// one scale follows the data). len(src) must be a multiple of t's block
// size and every value finite; otherwise a *CodecError is returned.
func Quantize(t GGMLType, src []float32) ([]byte, error) {
	fn, need, err := checkQuant(t, src)
	if err != nil {
		return nil, err
	}
	dst := make([]byte, need)
	fn(dst, src)
	return dst, nil
}

// QuantizeInto encodes src as type t into dst, which must be exactly
// t.TensorBytes(len(src)) long. It allocates nothing.
func QuantizeInto(dst []byte, t GGMLType, src []float32) error {
	fn, need, err := checkQuant(t, src)
	if err != nil {
		return err
	}
	if int64(len(dst)) != need {
		return &CodecError{Op: "quantize", Type: t, Field: "dst", Got: int64(len(dst)), Want: need, Reason: "destination has the wrong length"}
	}
	fn(dst, src)
	return nil
}

func checkQuant(t GGMLType, src []float32) (quantizer, int64, error) {
	fn, ok := quantizers[t]
	if !ok {
		return nil, 0, &CodecError{Op: "quantize", Type: t, Field: "type", Got: int64(t), Reason: "type not supported"}
	}
	need, ok := t.TensorBytes(int64(len(src)))
	if !ok {
		return nil, 0, &CodecError{Op: "quantize", Type: t, Field: "src", Got: int64(len(src)), Want: int64(t.BlockSize()), Reason: "length is not a multiple of the block size"}
	}
	for i, v := range src {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, 0, &CodecError{Op: "quantize", Type: t, Field: "src", Got: int64(i), Reason: "non-finite value at this index"}
		}
	}
	return fn, need, nil
}
