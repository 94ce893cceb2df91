package gguf

import "fmt"

// GGMLType is a tensor element type id as written in a GGUF tensor info
// (ggml's enum ggml_type). Ids that ggml retired are not defined.
type GGMLType uint32

// The ggml type ids. Numbering follows ggml.h; gaps are ids ggml removed.
const (
	TypeF32     GGMLType = 0
	TypeF16     GGMLType = 1
	TypeQ4_0    GGMLType = 2
	TypeQ4_1    GGMLType = 3
	TypeQ5_0    GGMLType = 6
	TypeQ5_1    GGMLType = 7
	TypeQ8_0    GGMLType = 8
	TypeQ8_1    GGMLType = 9
	TypeQ2_K    GGMLType = 10
	TypeQ3_K    GGMLType = 11
	TypeQ4_K    GGMLType = 12
	TypeQ5_K    GGMLType = 13
	TypeQ6_K    GGMLType = 14
	TypeQ8_K    GGMLType = 15
	TypeIQ2_XXS GGMLType = 16
	TypeIQ2_XS  GGMLType = 17
	TypeIQ3_XXS GGMLType = 18
	TypeIQ1_S   GGMLType = 19
	TypeIQ4_NL  GGMLType = 20
	TypeIQ3_S   GGMLType = 21
	TypeIQ2_S   GGMLType = 22
	TypeIQ4_XS  GGMLType = 23
	TypeI8      GGMLType = 24
	TypeI16     GGMLType = 25
	TypeI32     GGMLType = 26
	TypeI64     GGMLType = 27
	TypeF64     GGMLType = 28
	TypeIQ1_M   GGMLType = 29
	TypeBF16    GGMLType = 30
	TypeTQ1_0   GGMLType = 34
	TypeTQ2_0   GGMLType = 35
	TypeI2_S    GGMLType = 36 // Microsoft BitNet's fork of ggml, not upstream ggml
	TypeMXFP4   GGMLType = 39
)

// TypeTraits describes the storage of one ggml type: a tensor row is a
// whole number of blocks, each holding BlockSize elements in TypeSize bytes.
type TypeTraits struct {
	Name      string
	BlockSize int // elements per block
	TypeSize  int // bytes per block
	Quantized bool
	// TensorExtra is the bytes a whole tensor holds after its blocks: I2_S
	// ends every tensor with its one f32 scale padded to 32 bytes, as
	// Microsoft's quantize_i2_s writes it (and ggml_nbytes in their fork
	// counts it). Zero for every ggml type.
	TensorExtra int
}

var typeTraits = map[GGMLType]TypeTraits{
	TypeF32:     {"f32", 1, 4, false, 0},
	TypeF16:     {"f16", 1, 2, false, 0},
	TypeQ4_0:    {"q4_0", 32, 18, true, 0},
	TypeQ4_1:    {"q4_1", 32, 20, true, 0},
	TypeQ5_0:    {"q5_0", 32, 22, true, 0},
	TypeQ5_1:    {"q5_1", 32, 24, true, 0},
	TypeQ8_0:    {"q8_0", 32, 34, true, 0},
	TypeQ8_1:    {"q8_1", 32, 36, true, 0},
	TypeQ2_K:    {"q2_K", 256, 84, true, 0},
	TypeQ3_K:    {"q3_K", 256, 110, true, 0},
	TypeQ4_K:    {"q4_K", 256, 144, true, 0},
	TypeQ5_K:    {"q5_K", 256, 176, true, 0},
	TypeQ6_K:    {"q6_K", 256, 210, true, 0},
	TypeQ8_K:    {"q8_K", 256, 292, true, 0},
	TypeIQ2_XXS: {"iq2_xxs", 256, 66, true, 0},
	TypeIQ2_XS:  {"iq2_xs", 256, 74, true, 0},
	TypeIQ3_XXS: {"iq3_xxs", 256, 98, true, 0},
	TypeIQ1_S:   {"iq1_s", 256, 50, true, 0},
	TypeIQ4_NL:  {"iq4_nl", 32, 18, true, 0},
	TypeIQ3_S:   {"iq3_s", 256, 110, true, 0},
	TypeIQ2_S:   {"iq2_s", 256, 82, true, 0},
	TypeIQ4_XS:  {"iq4_xs", 256, 136, true, 0},
	TypeI8:      {"i8", 1, 1, false, 0},
	TypeI16:     {"i16", 1, 2, false, 0},
	TypeI32:     {"i32", 1, 4, false, 0},
	TypeI64:     {"i64", 1, 8, false, 0},
	TypeF64:     {"f64", 1, 8, false, 0},
	TypeIQ1_M:   {"iq1_m", 256, 56, true, 0},
	TypeBF16:    {"bf16", 1, 2, false, 0},
	TypeTQ1_0:   {"tq1_0", 256, 54, true, 0},
	TypeTQ2_0:   {"tq2_0", 256, 66, true, 0},
	// I2_S: 128 elements in 32 bytes, 2 bits each, in four interleaved
	// groups of 32 (see dequantI2S); the scale is per tensor, after the data.
	TypeI2_S:  {"i2_s", 128, 32, true, 32},
	TypeMXFP4: {"mxfp4", 32, 17, true, 0},
}

// Traits returns the storage traits of t and whether t is a known type.
func (t GGMLType) Traits() (TypeTraits, bool) {
	tt, ok := typeTraits[t]
	return tt, ok
}

// Valid reports whether t is a ggml type id this package knows.
func (t GGMLType) Valid() bool { _, ok := typeTraits[t]; return ok }

// BlockSize is the number of elements per block (1 for plain types), or 0
// for an unknown type.
func (t GGMLType) BlockSize() int { return typeTraits[t].BlockSize }

// TypeSize is the number of bytes per block, or 0 for an unknown type.
func (t GGMLType) TypeSize() int { return typeTraits[t].TypeSize }

// String returns ggml's lower-case name of the type, e.g. "q4_K".
func (t GGMLType) String() string {
	if tt, ok := typeTraits[t]; ok {
		return tt.Name
	}
	return fmt.Sprintf("type(%d)", uint32(t))
}

// ParseType returns the type whose ggml name is s (case-insensitive).
func ParseType(s string) (GGMLType, bool) {
	for t, tt := range typeTraits {
		if equalFold(tt.Name, s) {
			return t, true
		}
	}
	return 0, false
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// TensorBytes returns the byte size of a whole tensor of n elements of type
// t: RowBytes(n) plus the type's TensorExtra (the trailing scale of I2_S).
func (t GGMLType) TensorBytes(n int64) (int64, bool) {
	rb, ok := t.RowBytes(n)
	if !ok {
		return 0, false
	}
	return rb + int64(typeTraits[t].TensorExtra), true
}

// RowBytes returns the byte size of n elements of type t, and false when n
// is not a whole number of blocks or t is unknown.
func (t GGMLType) RowBytes(n int64) (int64, bool) {
	tt, ok := typeTraits[t]
	if !ok || n < 0 || n%int64(tt.BlockSize) != 0 {
		return 0, false
	}
	return n / int64(tt.BlockSize) * int64(tt.TypeSize), true
}
