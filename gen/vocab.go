package gen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/webgguf/webgguf/gguf"
)

// HF's converter marks padding tokens UNUSED (llama_token_type 5) and
// special tokens CONTROL (3).
const (
	tokenTypeControl = 3
	tokenTypeUnused  = 5
)

// tokenizerKV reads every tokenizer.* key of the vocab GGUF at path and,
// when nVocab exceeds its token count, pads tokens/scores/token_type the
// way convert_hf_to_gguf.py does for models whose embedding has more rows
// than the tokenizer has tokens (Qwen2.5: 151936 vs 151665): "[PAD<id>]"
// tokens of type UNUSED, score 0. A smaller nVocab is an error: dropping
// tokens would leave merges and special ids pointing outside the vocab.
// The specials that the vocab lacks take the first padding ids, as
// CONTROL tokens, when there are enough of them (else none is added); a
// template replaces tokenizer.chat_template (or is added last).
// It returns the keys in file order and the final vocab size.
func tokenizerKV(path string, nVocab int, specials []string, template string) ([]gguf.KV, int, error) {
	f, err := gguf.OpenPath(path)
	if err != nil {
		return nil, 0, fmt.Errorf("gen: vocab file: %w", err)
	}
	defer f.Close()
	toks, ok := f.Strings("tokenizer.ggml.tokens")
	if !ok || len(toks) == 0 {
		return nil, 0, &ConfigError{"Vocab", path, "has no tokenizer.ggml.tokens"}
	}
	have := len(toks)
	if nVocab == 0 {
		nVocab = have
	}
	if nVocab < have {
		return nil, 0, &ConfigError{"NVocab", nVocab, fmt.Sprintf("smaller than the %d tokens of %s", have, path)}
	}
	known := map[string]bool{}
	for _, t := range toks {
		known[t] = true
	}
	var add []string
	for _, sp := range specials {
		if !known[sp] && !slices.Contains(add, sp) {
			add = append(add, sp)
		}
	}
	if nVocab-have < len(add) {
		add = nil
	}
	var kv []gguf.KV
	for _, p := range f.KV {
		if !strings.HasPrefix(p.Key, "tokenizer.") {
			continue
		}
		v := p.Value
		if nVocab > have {
			switch p.Key {
			case "tokenizer.ggml.tokens":
				ext := append([]string(nil), toks...)
				ext = append(ext, add...)
				for i := len(ext); i < nVocab; i++ {
					ext = append(ext, fmt.Sprintf("[PAD%d]", i))
				}
				v = gguf.ValueOf(ext)
			case "tokenizer.ggml.scores":
				s, ok := f.Floats(p.Key)
				if !ok || len(s) != have {
					return nil, 0, &ConfigError{"Vocab", path, "tokenizer.ggml.scores does not match the tokens"}
				}
				v = gguf.ValueOf(append(append([]float32(nil), s...), make([]float32, nVocab-have)...))
			case "tokenizer.ggml.token_type":
				tt, ok := f.Ints(p.Key)
				if !ok || len(tt) != have {
					return nil, 0, &ConfigError{"Vocab", path, "tokenizer.ggml.token_type does not match the tokens"}
				}
				ext := make([]int32, nVocab)
				for i := range ext {
					switch {
					case i < have:
						ext[i] = int32(tt[i])
					case i < have+len(add):
						ext[i] = tokenTypeControl
					default:
						ext[i] = tokenTypeUnused
					}
				}
				v = gguf.ValueOf(ext)
			}
		}
		if p.Key == "tokenizer.chat_template" && template != "" {
			v, template = gguf.ValueOf(template), ""
		}
		kv = append(kv, gguf.KV{Key: p.Key, Value: v})
	}
	if template != "" {
		kv = append(kv, gguf.KV{Key: "tokenizer.chat_template", Value: gguf.ValueOf(template)})
	}
	return kv, nVocab, nil
}
