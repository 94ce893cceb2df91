package tokenizer

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/webgguf/webgguf/gguf"
)

// wpmExtra are inputs aimed at BERT's normalizer: precomposed and
// combining accents, case mappings outside ASCII, CJK ideographs (split one
// per word) next to kana (not split), ASCII symbols versus other symbols,
// and words longer than any token.
var wpmExtra = []string{
	"Café", "naïve", "ÅNGSTRÖM", "Ærøskøbing", "résumé", "e\u0301cole", "İstanbul", "ΣΊΣΥΦΟΣ", "Straße",
	"日本語です", "中文字符和English", "$100 + 5% = ~€105", "a^b|c`d", "©®™", "«quoted»", "Ǆemal",
	"supercalifragilisticexpialidociousantidisestablishmentarianism", "[CLS] [SEP] [MASK]", "\t\n\r",
}

// TestWordPieceOracle tokenizes random strings with the bge vocabulary
// (WordPiece) and compares the ids with llama.cpp's exactly, with
// parse_special off and on, and detokenizes them. add_special is off: the
// oracle adds special tokens the SPM/BPE way, not WordPiece's [CLS]/[SEP]
// (TestWordPieceSpecial covers those).
func TestWordPieceOracle(t *testing.T) {
	o := startOracle(t)
	tok := loadTokenizer(t, "vocab-bert-bge")
	h, err := o.Load(filepath.Join("testdata", "models", "vocab-bert-bge.gguf"), true)
	if err != nil {
		t.Fatal(err)
	}
	var specials []string
	for _, id := range tok.special {
		specials = append(specials, tok.tokens[id])
	}
	rng := rand.New(rand.NewPCG(0xbe47, diffSeed(t)))
	n := diffCount(t) / 2
	texts := append([]string{}, wpmExtra...)
	for range n {
		s := randText(rng, specials)
		if rng.IntN(3) == 0 {
			s += wpmExtra[rng.IntN(len(wpmExtra))]
		}
		texts = append(texts, s)
	}
	idSeqs, fails := tokenizeAgainst(t, o, h, tok, texts, false)
	compared, fails := detokenizeAgainst(t, o, h, tok, idSeqs, []bool{true}, fails)
	if fails > 0 {
		t.Errorf("%d mismatches", fails)
	}
	t.Logf("%d strings x 2 modes tokenized, %d detokenizations compared", len(texts), compared)
}

// TestWordPieceSpecial checks what llama_tokenize(add_special) does for a
// WordPiece vocabulary (llama-vocab.cpp, LLAMA_VOCAB_TYPE_WPM): [CLS] (the
// bos id, default 101) first and [SEP] (102) last, whatever add_bos and
// add_sep say, and unknown words as [UNK] (100).
func TestWordPieceSpecial(t *testing.T) {
	tok := loadTokenizer(t, "vocab-bert-bge")
	if tok.TokenText(101) != "[CLS]" || tok.TokenText(102) != "[SEP]" || tok.TokenText(100) != "[UNK]" {
		t.Fatalf("fixture ids: %q %q %q", tok.TokenText(101), tok.TokenText(102), tok.TokenText(100))
	}
	plain, err := tok.Encode("Hello world", false, false)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tok.Encode("Hello world", true, false)
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]int32{101}, plain...), 102)
	if !slices.Equal(got, want) {
		t.Errorf("add_special: got %v, want %v", got, want)
	}
	// remove_special drops [CLS] only (add_eos is off, and [SEP] is a
	// control token that renders as nothing); WordPiece has no space
	// prefix to remove, so the first word keeps its "▁" as a space.
	if got := tok.Detokenize(got, true, false); got != " hello world" {
		t.Errorf("Detokenize(remove_special) = %q", got)
	}
	unk, err := tok.Encode("\U0001F600", false, false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(unk, []int32{100}) {
		t.Errorf("emoji: got %v, want [100]", unk)
	}
}

// TestAddSEP checks llama_vocab_get_add_sep as llama.cpp's load sets it:
// on for WordPiece and the jina-v1-en/jina-v2-code/roberta-bpe BPE
// pre-tokenizers, off otherwise, and tokenizer.ggml.add_sep_token wins.
func TestAddSEP(t *testing.T) {
	if !loadTokenizer(t, "vocab-bert-bge").AddSEP() {
		t.Error("WordPiece: add_sep off")
	}
	f, err := gguf.OpenPath(filepath.Join("..", "testdata", "models", "vocab-gpt2-bpe.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	off := false
	for _, c := range []struct {
		pre  string
		flag *bool
		want bool
	}{{"gpt-2", nil, false}, {"roberta-bpe", nil, true}, {"jina-v2-code", nil, true}, {"roberta-bpe", &off, false}} {
		v, err := VocabFromGGUF(f)
		if err != nil {
			t.Fatal(err)
		}
		v.Pre, v.AddSEP = c.pre, c.flag
		tok, err := New(v)
		if err != nil {
			t.Fatal(err)
		}
		if tok.AddSEP() != c.want {
			t.Errorf("pre %q, add_sep_token %v: AddSEP %v, want %v", c.pre, c.flag, tok.AddSEP(), c.want)
		}
	}
}
