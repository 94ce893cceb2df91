package tokenizer

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/scripts/oracle"
)

// TestOracleMetadataVariants changes the flags and names llama.cpp reads
// (add_space_prefix, add_bos/eos, general.name "Phi-3" rstrip, token types)
// on the fixture vocabularies and compares tokenization and detokenization
// with llama.cpp on random strings.
func TestOracleMetadataVariants(t *testing.T) {
	o := startOracle(t)
	n := diffCount(t) / 5
	cases := []struct {
		name, base string
		edits      map[string]any
	}{
		{"spm-no-space-prefix", "vocab-llama-spm", map[string]any{"tokenizer.ggml.add_space_prefix": false}},
		{"spm-eos-no-bos", "vocab-llama-spm", map[string]any{"tokenizer.ggml.add_bos_token": false, "tokenizer.ggml.add_eos_token": true}},
		{"spm-phi3-rstrip", "vocab-llama-spm", map[string]any{"general.name": "Phi-3 mini", "tokenizer.ggml.tokens": phi3Tokens(t)}},
		{"bpe-add-bos-eos", "gotiny-q4_k_m", map[string]any{"tokenizer.ggml.add_bos_token": true, "tokenizer.ggml.add_eos_token": true}},
		{"bpe-user-defined", "gotiny-q4_k_m", map[string]any{"tokenizer.ggml.token_type": userDefinedTypes(t)}},
		{"spm-user-defined", "vocab-llama-spm", map[string]any{"tokenizer.ggml.token_type": spmUserDefinedTypes(t)}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeEdited(t, c.base, c.edits)
			f, err := gguf.OpenPath(path)
			if err != nil {
				t.Fatal(err)
			}
			tok, err := FromGGUF(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			h, err := o.Load(path, true)
			if err != nil {
				t.Fatal(err)
			}
			var specials []string
			for _, id := range tok.special {
				specials = append(specials, tok.tokens[id])
			}
			rng := rand.New(rand.NewPCG(uint64(2000+i), 9+diffSeed(t)))
			var texts []string
			var reqs []oracle.Request
			for j := 0; j < n; j++ {
				s := randText(rng, specials)
				texts = append(texts, s)
				for _, b := range []bool{false, true} {
					reqs = append(reqs, oracle.Request{"op": "tokenize", "model": h, "text": s, "addSpecial": b, "parseSpecial": b})
				}
			}
			resp, err := o.Batch(reqs)
			if err != nil {
				t.Fatal(err)
			}
			fails := 0
			var dreqs []oracle.Request
			var dids [][]int32
			for j, r := range resp {
				b := j%2 == 1
				got, err := tok.Encode(texts[j/2], b, b)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, r.IDs) && !(len(got) == 0 && len(r.IDs) == 0) {
					fails++
					if fails <= 5 {
						t.Errorf("Encode(%+q, %v)\n got %v\nwant %v", texts[j/2], b, got, r.IDs)
					}
				}
				dids = append(dids, r.IDs)
				dreqs = append(dreqs, oracle.Request{"op": "detokenize", "model": h, "ids": r.IDs, "special": b})
			}
			dresp, err := o.Batch(dreqs)
			if err != nil {
				t.Fatal(err)
			}
			for j, r := range dresp {
				got := tok.Detokenize(dids[j], false, j%2 == 1)
				if isValidUTF8(got) && (r.Text == nil || *r.Text != got) {
					fails++
					if fails <= 10 {
						t.Errorf("Detokenize(%v)\n got %+q\nwant %+q", dids[j], got, deref(r.Text))
					}
				}
			}
			if fails > 0 {
				t.Errorf("%d mismatches", fails)
			}
		})
	}
}

// userDefinedTypes marks a few common gotiny tokens user-defined, so they
// are split out of text even without parse_special, as llama.cpp does.
func userDefinedTypes(t *testing.T) []int32 {
	tok := loadTokenizer(t, "gotiny-q4_k_m")
	types := make([]int32, tok.NumTokens())
	for i := range types {
		types[i] = int32(TypeNormal)
	}
	types[0] = int32(TypeControl)
	for _, s := range []string{"func", "Ġreturn", "err", "ĠĠ"} {
		if id, ok := tok.TokenID(s); ok {
			types[id] = int32(TypeUserDefined)
		}
	}
	return types
}

// phi3Tokens renames the Llama-2 fixture's "\n<s>\n"/"\n</s>\n" to the
// "<s>"/"</s>" llama.cpp's Phi-3 rules look up, and adds "<|endoftext|>".
func phi3Tokens(t *testing.T) []string {
	tok := loadTokenizer(t, "vocab-llama-spm")
	toks := slices.Clone(tok.tokens)
	toks[1], toks[2], toks[len(toks)-1] = "<s>", "</s>", "<|endoftext|>"
	return toks
}

// spmUserDefinedTypes marks a few Llama-2 pieces user-defined (as Gemma's
// vocabulary does for its markup tokens): they are split out of raw text
// before SentencePiece runs, with or without parse_special.
func spmUserDefinedTypes(t *testing.T) []int32 {
	f, err := gguf.OpenPath(filepath.Join("..", "testdata", "models", "vocab-llama-spm.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, err := VocabFromGGUF(f)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := New(v)
	if err != nil {
		t.Fatal(err)
	}
	types := make([]int32, len(v.Types))
	for i, ty := range v.Types {
		types[i] = int32(ty)
	}
	for _, s := range []string{"ing", "the", "▁the", "<0x0A>", "he", "."} {
		if id, ok := tok.TokenID(s); ok {
			types[id] = int32(TypeUserDefined)
		}
	}
	return types
}
