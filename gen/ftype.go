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

// fileTypes are llama-quantize's file types (same names and ids) plus
// "mixed", which cycles through every format we can quantize, one per 2D
// tensor (a test model for dequantizers, not a llama.cpp type).
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
	"q3_k_s": {gguf.TypeQ3_K, 11},
	"q4_k_s": {gguf.TypeQ4_K, 14},
	"q4_k_m": {gguf.TypeQ4_K, 15},
	"q5_k_s": {gguf.TypeQ5_K, 16},
	"q6_k":   {gguf.TypeQ6_K, 18},
	"iq4_nl": {gguf.TypeIQ4_NL, 25},
	"iq4_xs": {gguf.TypeIQ4_XS, 30},
	"tq1_0":  {gguf.TypeTQ1_0, 36},
	"tq2_0":  {gguf.TypeTQ2_0, 37},
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

// role says what a tensor is, for type selection (llama.cpp's
// tensor_category).
type role int

const (
	roleVector     role = iota // norms and biases: never quantized
	roleWeight                 // attn_q, attn_k, ffn_gate, ffn_up
	roleOutput                 // output.weight, or token_embd when tied
	roleEmbd                   // token_embd with a separate output
	roleAttnV                  // attn_v.weight
	roleAttnOutput             // attn_output.weight
	roleFFNDown                // ffn_down.weight
	roleAttnQKV                // attn_qkv.weight (fused q, k, v)
)

// chooseType mirrors llama.cpp's llama_tensor_get_type (llama-quant.cpp,
// no imatrix, dense models, not Falcon) for the file types we offer:
//   - the output matrix (token_embd when tied) gets q6_K, or q8_0 when its
//     rows are not whole blocks of the base type or the base is q8_0;
//   - token_embd with a separate output: q4_K for TQ1_0 and TQ2_0;
//   - attn_v: Q2_K → q4_K if n_head/n_head_kv ≥ 4 else q3_K; IQ4_NL/IQ4_XS
//     → q5_K if n_gqa ≥ 4; Q4_K_M → q6_K on useMoreBits layers; Q4_K_S →
//     q5_K on the first 4 layers;
//   - ffn_down: Q2_K → q3_K; Q4_K_M → q6_K on useMoreBits layers; IQ4_NL/
//     IQ4_XS and Q4_K_S → q5_K on the first eighth of the layers;
//   - attn_output: Q2_K → q3_K;
//   - attn_qkv (a fused q, k, v): Q4_K_M → q5_K;
//   - then tensor_type_fallback for rows that are not whole blocks:
//     q4_K→q5_0, q5_K→q5_1, q6_K→q8_0, q2_K/q3_K/tq1_0/tq2_0→q4_0,
//     iq4_xs→iq4_nl, and
//     f16 when even that does not fit.
//
// f32/f16/bf16 files are written as they are (llama-quantize applies the
// rules only to quantized file types). mixedIdx counts 2D weights.
func chooseType(ft string, r role, ne0, layer, nLayer, nGQA, mixedIdx int) (gguf.GGMLType, error) {
	if r == roleVector {
		return gguf.TypeF32, nil
	}
	base := fileTypes[ft].base
	if ft == "mixed" {
		base = mixedCycle[mixedIdx%len(mixedCycle)]
	}
	if base == gguf.TypeF32 || base == gguf.TypeF16 || base == gguf.TypeBF16 {
		if ft == "mixed" || ne0%base.BlockSize() == 0 {
			return base, nil
		}
	}
	t := base
	if ft != "mixed" {
		t = ruleType(ft, r, base, ne0, layer, nLayer, nGQA)
	} else if r == roleOutput {
		t = ruleType("q8_0", r, base, ne0, layer, nLayer, nGQA)
	}
	if ne0%t.BlockSize() != 0 {
		switch t {
		case gguf.TypeQ4_K:
			t = gguf.TypeQ5_0
		case gguf.TypeQ5_K:
			t = gguf.TypeQ5_1
		case gguf.TypeQ6_K:
			t = gguf.TypeQ8_0
		case gguf.TypeQ2_K, gguf.TypeQ3_K:
			t = gguf.TypeQ4_0
		case gguf.TypeIQ4_XS:
			t = gguf.TypeIQ4_NL
		case gguf.TypeTQ1_0, gguf.TypeTQ2_0:
			t = gguf.TypeQ4_0
		default:
			return 0, &ConfigError{"Type", ft, fmt.Sprintf("%s needs rows that are a multiple of %d (a row here has %d)", t, t.BlockSize(), ne0)}
		}
		if ne0%t.BlockSize() != 0 {
			t = gguf.TypeF16 // llama.cpp: "must use F16 due to unusual shape"
		}
	}
	return t, nil
}

// ruleType applies llama_tensor_get_type_impl's per-category rules.
func ruleType(ft string, r role, base gguf.GGMLType, ne0, layer, nLayer, nGQA int) gguf.GGMLType {
	switch r {
	case roleEmbd:
		if ft == "tq1_0" || ft == "tq2_0" {
			return gguf.TypeQ4_K
		}
	case roleOutput:
		if ne0%base.BlockSize() != 0 {
			return gguf.TypeQ8_0
		}
		if base != gguf.TypeQ8_0 {
			return gguf.TypeQ6_K
		}
	case roleAttnV:
		switch {
		case ft == "q2_k" && nGQA >= 4:
			return gguf.TypeQ4_K
		case ft == "q2_k":
			return gguf.TypeQ3_K
		case (ft == "iq4_nl" || ft == "iq4_xs") && nGQA >= 4:
			return gguf.TypeQ5_K
		case ft == "q4_k_m" && useMoreBits(layer, nLayer):
			return gguf.TypeQ6_K
		case ft == "q4_k_s" && layer < 4:
			return gguf.TypeQ5_K
		}
	case roleFFNDown:
		switch {
		case ft == "q2_k":
			return gguf.TypeQ3_K
		case ft == "q4_k_m" && useMoreBits(layer, nLayer):
			return gguf.TypeQ6_K
		case (ft == "iq4_nl" || ft == "iq4_xs") && layer < nLayer/8:
			return gguf.TypeQ5_K
		case ft == "q4_k_s" && layer < nLayer/8:
			return gguf.TypeQ5_K
		}
	case roleAttnOutput:
		if ft == "q2_k" {
			return gguf.TypeQ3_K
		}
	case roleAttnQKV:
		if ft == "q4_k_m" {
			return gguf.TypeQ5_K
		}
	}
	return base
}
