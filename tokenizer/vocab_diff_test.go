package tokenizer

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestOracleVocabAttrs compares every token's attributes, the
// end-of-generation set and bos/eos/eot with what libllama derives from the
// same file (including its text-based control-token detection).
func TestOracleVocabAttrs(t *testing.T) {
	o := startOracle(t)
	for _, model := range []string{"vocab-llama-spm", "vocab-llama3-bpe", "vocab-qwen3-bpe", "gotiny-q4_k_m",
		"vocab-phi3-spm", "vocab-gpt2-bpe", "vocab-deepseek-coder-bpe", "vocab-deepseek-llm-bpe"} {
		t.Run(model, func(t *testing.T) {
			tok := loadTokenizer(t, model)
			h, err := o.Load(filepath.Join("testdata", "models", model+".gguf"), true)
			if err != nil {
				t.Fatal(err)
			}
			r, err := o.Vocab(h)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Attrs) != tok.NumTokens() {
				t.Fatalf("%d attrs for %d tokens", len(r.Attrs), tok.NumTokens())
			}
			// UNUSED is only a label llama.cpp adds to control tokens named
			// "unused"; it changes neither tokenization nor decoding.
			mask := ^uint32(AttrUnused)
			bad := 0
			for id, a := range r.Attrs {
				if uint32(tok.attrs[id])&mask != a&mask {
					bad++
					if bad <= 5 {
						t.Errorf("token %d %q: attr %#x, llama.cpp %#x", id, tok.tokens[id], tok.attrs[id], a)
					}
				}
			}
			if !slices.Equal(tok.EOGTokens(), r.EOG) {
				t.Errorf("EOG %v, llama.cpp %v", tok.EOGTokens(), r.EOG)
			}
			for _, c := range []struct {
				name string
				got  int32
				want *int32
			}{{"bos", tok.BOS(), r.BOS}, {"eos", tok.EOS(), r.EOS}, {"eot", tok.EOT(), r.EOT}} {
				want := NoToken
				if c.want != nil {
					want = *c.want
				}
				// node-llama-cpp reports a special id only when the token is
				// control-type; libllama's own id may be a normal token.
				if want == NoToken && c.got != NoToken && tok.attrs[c.got]&AttrControl == 0 {
					continue
				}
				if c.got != want {
					t.Errorf("%s %d, llama.cpp %d", c.name, c.got, want)
				}
			}
		})
	}
}
