package gen

import (
	"fmt"
	"strings"

	"github.com/webgguf/webgguf/gguf"
)

// HF's converter marks padding tokens UNUSED (llama_token_type 5).
const tokenTypeUnused = 5

// tokenizerKV reads every tokenizer.* key of the vocab GGUF at path and,
// when nVocab exceeds its token count, pads tokens/scores/token_type the
// way convert_hf_to_gguf.py does for models whose embedding has more rows
// than the tokenizer has tokens (Qwen2.5: 151936 vs 151665): "[PAD<id>]"
// tokens of type UNUSED, score 0. A smaller nVocab is an error: dropping
// tokens would leave merges and special ids pointing outside the vocab.
// It returns the keys in file order and the final vocab size.
func tokenizerKV(path string, nVocab int) ([]gguf.KV, int, error) {
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
				for i := have; i < nVocab; i++ {
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
					ext[i] = tokenTypeUnused
					if i < have {
						ext[i] = int32(tt[i])
					}
				}
				v = gguf.ValueOf(ext)
			}
		}
		kv = append(kv, gguf.KV{Key: p.Key, Value: v})
	}
	return kv, nVocab, nil
}
