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
	TypeMXFP4   GGMLType = 39
)

// TypeTraits describes the storage of one ggml type: a tensor row is a
// whole number of blocks, each holding BlockSize elements in TypeSize bytes.
type TypeTraits struct {
	Name      string
	BlockSize int // elements per block
	TypeSize  int // bytes per block
	Quantized bool
}

var typeTraits = map[GGMLType]TypeTraits{
	TypeF32:     {"f32", 1, 4, false},
	TypeF16:     {"f16", 1, 2, false},
	TypeQ4_0:    {"q4_0", 32, 18, true},
	TypeQ4_1:    {"q4_1", 32, 20, true},
	TypeQ5_0:    {"q5_0", 32, 22, true},
	TypeQ5_1:    {"q5_1", 32, 24, true},
	TypeQ8_0:    {"q8_0", 32, 34, true},
	TypeQ8_1:    {"q8_1", 32, 36, true},
	TypeQ2_K:    {"q2_K", 256, 84, true},
	TypeQ3_K:    {"q3_K", 256, 110, true},
	TypeQ4_K:    {"q4_K", 256, 144, true},
	TypeQ5_K:    {"q5_K", 256, 176, true},
	TypeQ6_K:    {"q6_K", 256, 210, true},
	TypeQ8_K:    {"q8_K", 256, 292, true},
	TypeIQ2_XXS: {"iq2_xxs", 256, 66, true},
	TypeIQ2_XS:  {"iq2_xs", 256, 74, true},
	TypeIQ3_XXS: {"iq3_xxs", 256, 98, true},
	TypeIQ1_S:   {"iq1_s", 256, 50, true},
	TypeIQ4_NL:  {"iq4_nl", 32, 18, true},
	TypeIQ3_S:   {"iq3_s", 256, 110, true},
	TypeIQ2_S:   {"iq2_s", 256, 82, true},
	TypeIQ4_XS:  {"iq4_xs", 256, 136, true},
	TypeI8:      {"i8", 1, 1, false},
	TypeI16:     {"i16", 1, 2, false},
	TypeI32:     {"i32", 1, 4, false},
	TypeI64:     {"i64", 1, 8, false},
	TypeF64:     {"f64", 1, 8, false},
	TypeIQ1_M:   {"iq1_m", 256, 56, true},
	TypeBF16:    {"bf16", 1, 2, false},
	TypeTQ1_0:   {"tq1_0", 256, 54, true},
	TypeTQ2_0:   {"tq2_0", 256, 66, true},
	TypeMXFP4:   {"mxfp4", 32, 17, true},
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

// RowBytes returns the byte size of n elements of type t, and false when n
// is not a whole number of blocks or t is unknown.
func (t GGMLType) RowBytes(n int64) (int64, bool) {
	tt, ok := typeTraits[t]
	if !ok || n < 0 || n%int64(tt.BlockSize) != 0 {
		return 0, false
	}
	return n / int64(tt.BlockSize) * int64(tt.TypeSize), true
}
