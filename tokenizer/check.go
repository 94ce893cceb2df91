package tokenizer

import (
	"fmt"
	"math"
	"strings"
)

// specialKeys names each special-token id of a Vocab by its GGUF key, and
// says whether this package uses it: bos and eos are added to and end
// sequences, eot and eom end generation, unk stands for what SentencePiece
// cannot spell. A used id outside the vocabulary would silently make
// tokenization or generation wrong (llama.cpp warns and falls back to a
// per-model default that may be an unrelated token), so it is refused; pad
// and sep are never used here, so an out-of-range one is only a warning.
func specialKeys(v *Vocab) []struct {
	key  string
	id   int32
	used bool
} {
	return []struct {
		key  string
		id   int32
		used bool
	}{
		{"tokenizer.ggml.bos_token_id", v.BOS, true}, {"tokenizer.ggml.eos_token_id", v.EOS, true},
		{"tokenizer.ggml.eot_token_id", v.EOT, true}, {"tokenizer.ggml.eom_token_id", v.EOM, true},
		{"tokenizer.ggml.unknown_token_id", v.UNK, true},
		{"tokenizer.ggml.seperator_token_id", v.SEP, false}, {"tokenizer.ggml.padding_token_id", v.PAD, false},
	}
}

// check validates what New would otherwise accept silently from a hostile
// or broken file. It returns a *MetadataError naming the key for what makes
// the tokenizer wrong, and warnings for what is odd but harmless.
func check(v *Vocab) (warnings []string, err error) {
	n := len(v.Tokens)
	for _, s := range specialKeys(v) {
		if s.id < int32(n) {
			continue // in range, or NoToken (absent)
		}
		if s.used {
			return nil, metaErr(s.key, -1, "token id %d is outside the %d-token vocabulary", s.id, n)
		}
		warnings = append(warnings, fmt.Sprintf("%s: token id %d is outside the %d-token vocabulary; ignored", s.key, s.id, n))
	}
	// SentencePiece merges by score: a NaN compares false both ways, so the
	// merge order, and with it every token sequence, becomes arbitrary.
	// Byte-level BPE ranks by merge order and never reads the scores.
	if nan := firstNaN(v.Scores[:min(n, len(v.Scores))]); nan >= 0 {
		if v.Model == "llama" {
			return nil, metaErr("tokenizer.ggml.scores", nan, "NaN score")
		}
		warnings = append(warnings, fmt.Sprintf("tokenizer.ggml.scores[%d]: NaN score (unused by %s vocabularies)", nan, v.Model))
	}
	// A type outside llama.cpp's 0..6 gets no attribute (undefined), as in
	// llama.cpp: the token is neither special nor normal text.
	if first, count := firstOf(n, func(i int) bool {
		return v.Types != nil && (v.Types[i] < TypeUndefined || v.Types[i] > TypeByte)
	}); count > 0 {
		warnings = append(warnings, fmt.Sprintf("tokenizer.ggml.token_type[%d]: unknown type %d (%d tokens have an unknown type; treated as undefined)", first, v.Types[first], count))
	}
	// llama.cpp splits a merge at its first space after the first byte; one
	// without such a space, or with an empty side, can never apply (its
	// pair ("", "") or (x, "") never occurs), so it only costs a rank.
	if v.Model == "gpt2" {
		if first, count := firstOf(len(v.Merges), func(i int) bool { return !wellFormedMerge(v.Merges[i]) }); count > 0 {
			warnings = append(warnings, fmt.Sprintf("tokenizer.ggml.merges[%d]: %q is not \"left right\" (%d malformed merges; they never apply)", first, v.Merges[first], count))
		}
	}
	return warnings, nil
}

func wellFormedMerge(w string) bool {
	if len(w) < 2 {
		return false
	}
	p := strings.IndexByte(w[1:], ' ')
	return p >= 0 && p+2 < len(w)
}

func firstNaN(xs []float32) int {
	for i, x := range xs {
		if math.IsNaN(float64(x)) {
			return i
		}
	}
	return -1
}

// firstOf returns the first i < n for which bad holds, and how many do.
func firstOf(n int, bad func(int) bool) (first, count int) {
	first = -1
	for i := range n {
		if bad(i) {
			if count == 0 {
				first = i
			}
			count++
		}
	}
	return first, count
}

// Warnings lists what New found odd in the vocabulary but accepted, each
// naming its GGUF key: out-of-range pad or sep ids, NaN scores where they
// are unused, unknown token types, malformed merges. Nil when none.
func (t *Tokenizer) Warnings() []string { return t.warnings }
