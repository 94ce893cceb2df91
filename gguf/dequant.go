package gguf

// A dequantizer converts whole blocks: src holds exactly len(dst)/BlockSize
// blocks of TypeSize bytes each. Callers (Dequantize, DequantizeInto) check
// the lengths, so the block functions never see a short slice.
type dequantizer func(dst []float32, src []byte)

// dequantizers lists every type this package can turn into float32.
var dequantizers = map[GGMLType]dequantizer{
	TypeF32:    dequantF32,
	TypeF16:    dequantF16,
	TypeBF16:   dequantBF16,
	TypeF64:    dequantF64,
	TypeI8:     dequantI8,
	TypeI16:    dequantI16,
	TypeI32:    dequantI32,
	TypeQ4_0:   dequantQ4_0,
	TypeQ4_1:   dequantQ4_1,
	TypeQ5_0:   dequantQ5_0,
	TypeQ5_1:   dequantQ5_1,
	TypeQ8_0:   dequantQ8_0,
	TypeQ2_K:   dequantQ2K,
	TypeQ3_K:   dequantQ3K,
	TypeQ4_K:   dequantQ4K,
	TypeQ5_K:   dequantQ5K,
	TypeQ6_K:   dequantQ6K,
	TypeIQ4_NL: dequantIQ4NL,
	TypeIQ4_XS: dequantIQ4XS,
	TypeTQ1_0:  dequantTQ1_0,
	TypeTQ2_0:  dequantTQ2_0,
	TypeI2_S:   dequantI2S,
}

// CanDequantize reports whether Dequantize supports type t.
func CanDequantize(t GGMLType) bool { _, ok := dequantizers[t]; return ok }

// Dequantize converts the first n elements stored in src (ggml layout of
// type t) to float32. n must be a whole number of blocks and src must hold
// at least the bytes those blocks need (for I2_S, whose scale follows the
// data, src is a whole tensor of TensorBytes(n) bytes); otherwise a
// *CodecError is returned.
// The result is allocated only after n has been checked against len(src).
func Dequantize(t GGMLType, src []byte, n int) ([]float32, error) {
	fn, need, err := checkDequant(t, src, int64(n), "n")
	if err != nil {
		return nil, err
	}
	dst := make([]float32, n)
	fn(dst, src[:need])
	return dst, nil
}

// DequantizeInto converts len(dst) elements of type t from src into dst,
// without allocating. len(dst) must be a whole number of blocks and src must
// hold at least the bytes those blocks need.
func DequantizeInto(dst []float32, t GGMLType, src []byte) error {
	fn, need, err := checkDequant(t, src, int64(len(dst)), "dst")
	if err != nil {
		return err
	}
	fn(dst, src[:need])
	return nil
}

func checkDequant(t GGMLType, src []byte, n int64, field string) (dequantizer, int64, error) {
	fn, ok := dequantizers[t]
	if !ok {
		return nil, 0, &CodecError{Op: "dequantize", Type: t, Field: "type", Got: int64(t), Reason: "type not supported"}
	}
	if n < 0 {
		return nil, 0, &CodecError{Op: "dequantize", Type: t, Field: field, Got: n, Reason: "negative element count"}
	}
	need, ok := t.TensorBytes(n)
	if !ok {
		return nil, 0, &CodecError{Op: "dequantize", Type: t, Field: field, Got: n, Want: int64(t.BlockSize()), Reason: "element count is not a multiple of the block size"}
	}
	if int64(len(src)) < need {
		return nil, 0, &CodecError{Op: "dequantize", Type: t, Field: "src", Got: int64(len(src)), Want: need, Reason: "source too short"}
	}
	return fn, need, nil
}
