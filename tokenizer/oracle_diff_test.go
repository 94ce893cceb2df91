package tokenizer

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/webgguf/webgguf/scripts/oracle"
)

// diffCount is the number of random strings per vocabulary; the default
// keeps make test short, WEBGGUF_ORACLE_N raises it (make test-tokenizer-long).
func diffCount(t *testing.T) int {
	n := 2500
	if s := os.Getenv("WEBGGUF_ORACLE_N"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v <= 0 {
			t.Fatalf("bad WEBGGUF_ORACLE_N %q", s)
		}
		n = v
	}
	if testing.Short() {
		n = 200
	}
	return n
}

// diffSeed is the random-string seed: fixed (42) in make test, or
// WEBGGUF_ORACLE_SEED for exploring more strings in the long target.
func diffSeed(t *testing.T) uint64 {
	s := os.Getenv("WEBGGUF_ORACLE_SEED")
	if s == "" {
		return 42
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatalf("bad WEBGGUF_ORACLE_SEED %q", s)
	}
	return v
}

// TestOracleDifferential tokenizes thousands of random strings per
// vocabulary with parse_special off and on, and checks the ids against
// llama.cpp (node-llama-cpp) exactly; it also detokenizes the ids (and
// random id sequences) and compares the text.
func TestOracleDifferential(t *testing.T) {
	o := startOracle(t)
	n := diffCount(t)
	for i, model := range []string{"vocab-llama-spm", "vocab-llama3-bpe", "vocab-qwen3-bpe", "gotiny-q4_k_m",
		"vocab-phi3-spm", "vocab-gpt2-bpe", "vocab-deepseek-coder-bpe", "vocab-deepseek-llm-bpe"} {
		t.Run(model, func(t *testing.T) {
			tok := loadTokenizer(t, model)
			h, err := o.Load(filepath.Join("testdata", "models", model+".gguf"), true)
			if err != nil {
				t.Fatal(err)
			}
			var specials []string
			for _, id := range tok.special {
				specials = append(specials, tok.tokens[id])
			}
			specials = append(specials, "<s>", "</s>", "<|im_start|>", "<|endoftext|>", "<|begin_of_text|>", "<|eot_id|>")
			rng := rand.New(rand.NewPCG(uint64(0x7e57+i), diffSeed(t)))
			texts := make([]string, n)
			for j := range texts {
				texts[j] = randText(rng, specials)
			}
			idSeqs, fails := tokenizeAgainst(t, o, h, tok, texts, true)
			// Random id sequences exercise byte tokens, control tokens and
			// partial UTF-8 on the way back.
			for j := 0; j < n/4; j++ {
				seq := make([]int32, 1+rng.IntN(12))
				for k := range seq {
					seq[k] = int32(rng.IntN(tok.NumTokens()))
				}
				idSeqs = append(idSeqs, seq)
			}
			compared, fails := detokenizeAgainst(t, o, h, tok, idSeqs, []bool{false, true}, fails)
			if total := 2 * len(idSeqs); compared < total/2 {
				t.Errorf("only %d of %d detokenizations were comparable", compared, total)
			}
			if fails > 0 {
				t.Errorf("%d mismatches", fails)
			}
			t.Logf("%s: %d strings x 2 modes tokenized, %d detokenizations compared", model, n, compared)
		})
	}
}

// tokenizeAgainst tokenizes every text with tok and with llama.cpp's model
// h, parse_special off and then on (add_special on with it when addSpecial
// is set), and reports ids that differ (the first ten). It returns
// llama.cpp's ids in that order and the number of mismatches.
func tokenizeAgainst(t *testing.T, o *oracle.Client, h int, tok *Tokenizer, texts []string, addSpecial bool) ([][]int32, int) {
	t.Helper()
	var reqs []oracle.Request
	for _, s := range texts {
		for _, parse := range []bool{false, true} {
			reqs = append(reqs, oracle.Request{"op": "tokenize", "model": h, "text": s, "addSpecial": addSpecial && parse, "parseSpecial": parse})
		}
	}
	resp, err := o.Batch(reqs)
	if err != nil {
		t.Fatal(err)
	}
	fails := 0
	var idSeqs [][]int32
	for j, r := range resp {
		s, parse := texts[j/2], j%2 == 1
		got, err := tok.Encode(s, addSpecial && parse, parse)
		if err != nil {
			t.Fatalf("Encode(%q): %v", s, err)
		}
		if !slices.Equal(got, r.IDs) && !(len(got) == 0 && len(r.IDs) == 0) {
			fails++
			if fails <= 10 {
				t.Errorf("Encode(%+q, parse=%v)\n got %v\nwant %v", s, parse, got, r.IDs)
			}
		}
		idSeqs = append(idSeqs, r.IDs)
	}
	return idSeqs, fails
}

// detokenizeAgainst detokenizes every id sequence with tok and with
// llama.cpp's model h, once per value of special in specials, and reports
// texts that differ while the count, which starts at fails, is at most 20.
// Texts that are not valid UTF-8 are not compared: the JS side replaced
// their bad bytes. It returns how many were compared and the new count.
func detokenizeAgainst(t *testing.T, o *oracle.Client, h int, tok *Tokenizer, idSeqs [][]int32, specials []bool, fails int) (int, int) {
	t.Helper()
	var dreqs []oracle.Request
	for _, ids := range idSeqs {
		for _, special := range specials {
			dreqs = append(dreqs, oracle.Request{"op": "detokenize", "model": h, "ids": ids, "special": special})
		}
	}
	dresp, err := o.Batch(dreqs)
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for j, r := range dresp {
		ids, special := idSeqs[j/len(specials)], specials[j%len(specials)]
		got := tok.Detokenize(ids, false, special)
		if !utf8.ValidString(got) {
			continue
		}
		compared++
		if r.Text == nil || got != *r.Text {
			fails++
			if fails <= 20 {
				t.Errorf("Detokenize(%v, special=%v)\n got %+q\nwant %+q", ids, special, got, deref(r.Text))
			}
		}
	}
	return compared, fails
}

func deref(s *string) string {
	if s == nil {
		return fmt.Sprint(nil)
	}
	return *s
}
