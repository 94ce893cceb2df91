package tokenizer

import (
	"math"

	"github.com/webgguf/webgguf/gguf"
)

// VocabFromGGUF reads the tokenizer.ggml.* metadata of f into a Vocab.
func VocabFromGGUF(f *gguf.File) (*Vocab, error) {
	v := &Vocab{BOS: NoToken, EOS: NoToken, EOT: NoToken, EOM: NoToken, UNK: NoToken, SEP: NoToken, PAD: NoToken}
	var ok bool
	if v.Model, ok = f.String("tokenizer.ggml.model"); !ok {
		return nil, metaErr("tokenizer.ggml.model", -1, "missing or not a string")
	}
	v.Pre, _ = f.String("tokenizer.ggml.pre")
	v.Name, _ = f.String("general.name")
	if v.Tokens, ok = f.Strings("tokenizer.ggml.tokens"); !ok {
		return nil, metaErr("tokenizer.ggml.tokens", -1, "missing or not a string array")
	}
	if _, present := f.Value("tokenizer.ggml.scores"); present {
		if v.Scores, ok = f.Floats("tokenizer.ggml.scores"); !ok {
			// llama.cpp also accepts int32 scores.
			ints, iok := f.Ints("tokenizer.ggml.scores")
			if !iok {
				return nil, metaErr("tokenizer.ggml.scores", -1, "not a numeric array")
			}
			v.Scores = make([]float32, len(ints))
			for i, x := range ints {
				v.Scores[i] = float32(x)
			}
		}
	}
	if _, present := f.Value("tokenizer.ggml.token_type"); present {
		ints, iok := f.Ints("tokenizer.ggml.token_type")
		if !iok {
			return nil, metaErr("tokenizer.ggml.token_type", -1, "not an integer array")
		}
		v.Types = make([]TokenType, len(ints))
		for i, x := range ints {
			// A wider value would wrap into some valid type (2^32+3:
			// control) rather than read as unknown.
			if x < math.MinInt32 || x > math.MaxInt32 {
				return nil, metaErr("tokenizer.ggml.token_type", i, "%d does not fit int32", x)
			}
			v.Types[i] = TokenType(x)
		}
	}
	if _, present := f.Value("tokenizer.ggml.merges"); present {
		if v.Merges, ok = f.Strings("tokenizer.ggml.merges"); !ok {
			return nil, metaErr("tokenizer.ggml.merges", -1, "not a string array")
		}
	}
	ids := []struct {
		key string
		dst *int32
	}{
		{"tokenizer.ggml.bos_token_id", &v.BOS}, {"tokenizer.ggml.eos_token_id", &v.EOS},
		{"tokenizer.ggml.eot_token_id", &v.EOT}, {"tokenizer.ggml.eom_token_id", &v.EOM},
		{"tokenizer.ggml.unknown_token_id", &v.UNK}, {"tokenizer.ggml.seperator_token_id", &v.SEP},
		{"tokenizer.ggml.padding_token_id", &v.PAD},
	}
	for _, s := range ids {
		if _, present := f.Value(s.key); !present {
			continue
		}
		u, uok := f.Uint(s.key)
		if !uok {
			return nil, metaErr(s.key, -1, "not an unsigned integer")
		}
		// New judges an id outside the vocabulary (refused or warned about),
		// so it is kept, clamped where int32 cannot hold it.
		*s.dst = int32(min(u, math.MaxInt32))
	}
	flags := []struct {
		key string
		dst **bool
	}{
		{"tokenizer.ggml.add_bos_token", &v.AddBOS}, {"tokenizer.ggml.add_eos_token", &v.AddEOS},
		{"tokenizer.ggml.add_space_prefix", &v.AddSpacePrefix},
		{"tokenizer.ggml.add_sep_token", &v.AddSEP},
		{"tokenizer.ggml.normalizer.lowercase", &v.Lowercase},
		{"tokenizer.ggml.normalizer.strip_accents", &v.StripAccents},
	}
	for _, s := range flags {
		if _, present := f.Value(s.key); !present {
			continue
		}
		b, bok := f.Bool(s.key)
		if !bok {
			return nil, metaErr(s.key, -1, "not a bool")
		}
		*s.dst = &b
	}
	return v, nil
}

// FromGGUF builds the tokenizer described by f's metadata.
func FromGGUF(f *gguf.File) (*Tokenizer, error) {
	v, err := VocabFromGGUF(f)
	if err != nil {
		return nil, err
	}
	return New(v)
}
