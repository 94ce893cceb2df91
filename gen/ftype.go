package gen

import (
	"fmt"
	"sort"

	"github.com/webgguf/webgguf/gguf"
)

// fileType is one --type choice: the type of the 2D weights and the
// general.file_type id (llama.cpp's enum llama_ftype) written for it.
type fileType struct {
	base  gguf.GGMLType
	ftype uint32
}

// fileTypes: the uniform types put every 2D weight in one format (the k
// ones are not llama.cpp's _S/_M mixes, whose nearest ftype id they carry);
// q4_k_m reproduces llama-quantize's Q4_K_M choice; mixed cycles through
// every format we can quantize, one per tensor.
var fileTypes = map[string]fileType{
	"f32":    {gguf.TypeF32, 0},
	"f16":    {gguf.TypeF16, 1},
	"bf16":   {gguf.TypeBF16, 32},
	"q4_0":   {gguf.TypeQ4_0, 2},
	"q4_1":   {gguf.TypeQ4_1, 3},
	"q8_0":   {gguf.TypeQ8_0, 7},
	"q5_0":   {gguf.TypeQ5_0, 8},
	"q5_1":   {gguf.TypeQ5_1, 9},
	"q2_k":   {gguf.TypeQ2_K, 10},
	"q3_k":   {gguf.TypeQ3_K, 11},
	"q4_k":   {gguf.TypeQ4_K, 14},
	"q5_k":   {gguf.TypeQ5_K, 16},
	"q6_k":   {gguf.TypeQ6_K, 18},
	"iq4_nl": {gguf.TypeIQ4_NL, 25},
	"iq4_xs": {gguf.TypeIQ4_XS, 30},
	"q4_k_m": {gguf.TypeQ4_K, 15},
	"mixed":  {gguf.TypeQ8_0, 7},
}

// mixedCycle is the order in which "mixed" assigns formats to 2D weights.
var mixedCycle = []gguf.GGMLType{gguf.TypeQ4_0, gguf.TypeQ4_1, gguf.TypeQ5_0, gguf.TypeQ5_1, gguf.TypeQ8_0,
	gguf.TypeQ2_K, gguf.TypeQ3_K, gguf.TypeQ4_K, gguf.TypeQ5_K, gguf.TypeQ6_K, gguf.TypeIQ4_NL, gguf.TypeIQ4_XS,
	gguf.TypeF16, gguf.TypeBF16}

// Types lists the accepted Config.Type values.
func Types() []string {
	var n []string
	for k := range fileTypes {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// useMoreBits is llama.cpp's use_more_bits: which layers Q4_K_M gives q6_K
// for attn_v and ffn_down (the first and last eighth, and every third).
func useMoreBits(layer, nLayer int) bool {
	return layer < nLayer/8 || layer >= 7*nLayer/8 || (layer-nLayer/8)%3 == 2
}

// role says what a tensor is, for type selection.
type role int

const (
	roleVector   role = iota // norms and biases: always f32
	roleWeight               // ordinary 2D weight
	roleOutput               // output.weight, or token_embd when tied
	roleAttnV                // attn_v.weight
	roleFFNDown              // ffn_down.weight
	roleEmbdUsed             // token_embd with a separate output
)

// chooseType mirrors llama.cpp's llama_tensor_get_type for the file types
// we offer (no imatrix): the output matrix gets q6_K (q8_0 when its rows
// are not whole blocks of the base type) unless the base is q8_0 or a float
// type; Q4_K_M raises attn_v/ffn_down to q6_K on useMoreBits layers;
// 256-element types fall back (q4_K→q5_0, q5_K→q5_1, q6_K→q8_0,
// q2_K/q3_K/iq4_xs→iq4_nl) when the row length is not a multiple of 256.
// mixedIdx counts 2D weights for "mixed".
func chooseType(ft string, r role, ne0, layer, nLayer, mixedIdx int) (gguf.GGMLType, error) {
	if r == roleVector {
		return gguf.TypeF32, nil
	}
	base := fileTypes[ft].base
	if ft == "mixed" {
		base = mixedCycle[mixedIdx%len(mixedCycle)]
	}
	t := base
	quantized := base != gguf.TypeF32 && base != gguf.TypeF16 && base != gguf.TypeBF16
	switch {
	case r == roleOutput && (quantized || ft == "mixed"):
		if ne0%base.BlockSize() != 0 {
			t = gguf.TypeQ8_0
		} else if base != gguf.TypeQ8_0 {
			t = gguf.TypeQ6_K
		}
	case ft == "q4_k_m" && (r == roleAttnV || r == roleFFNDown) && useMoreBits(layer, nLayer):
		t = gguf.TypeQ6_K
	}
	if t.BlockSize() == 256 && ne0%256 != 0 {
		switch t {
		case gguf.TypeQ4_K:
			t = gguf.TypeQ5_0
		case gguf.TypeQ5_K:
			t = gguf.TypeQ5_1
		case gguf.TypeQ6_K:
			t = gguf.TypeQ8_0
		default: // q2_K, q3_K, iq4_xs
			t = gguf.TypeIQ4_NL
		}
	}
	if ne0%t.BlockSize() != 0 {
		return 0, &ConfigError{"Type", ft, fmt.Sprintf("%s needs rows that are a multiple of %d (a row here has %d)", t, t.BlockSize(), ne0)}
	}
	return t, nil
}
