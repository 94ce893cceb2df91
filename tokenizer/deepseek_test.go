package tokenizer

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/webgguf/webgguf/gguf"

	"github.com/webgguf/webgguf/scripts/oracle"
)

// TestOracleDeepseekLLMClasses compares DeepSeek-LLM's tokenization with
// llama.cpp at the edges of its pre-tokenizer's hand-written classes (each
// letter range's ends and their neighbours, the characters its source
// writes with singleton decompositions and their NFC forms, the punctuation
// and CJK ranges, whitespace kinds), each in contexts that put the code
// point next to letters, CJK, digits, punctuation and spaces.
func TestOracleDeepseekLLMClasses(t *testing.T) {
	o := startOracle(t)
	const model = "vocab-deepseek-llm-bpe"
	h, err := o.Load(filepath.Join("testdata", "models", model+".gguf"), true)
	if err != nil {
		t.Fatal(err)
	}
	texts := deepseekClassTexts()
	encodeLikeOracle(t, o, h, loadTokenizer(t, model), texts, 10)
	t.Logf("%d strings compared", len(texts))
}

// encodeLikeOracle tokenizes texts (no special tokens added or parsed)
// with tok and with llama.cpp (the oracle's model h), reporting up to show
// differing strings and the count of all.
func encodeLikeOracle(t *testing.T, o *oracle.Client, h int, tok *Tokenizer, texts []string, show int) {
	t.Helper()
	var reqs []oracle.Request
	for _, s := range texts {
		reqs = append(reqs, oracle.Request{"op": "tokenize", "model": h, "text": s, "addSpecial": false, "parseSpecial": false})
	}
	resp, err := o.Batch(reqs)
	if err != nil {
		t.Fatal(err)
	}
	fails := 0
	for i, r := range resp {
		got, err := tok.Encode(texts[i], false, false)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, r.IDs) {
			fails++
			if fails <= show {
				t.Errorf("Encode(%+q)\n got %v\nwant %v", texts[i], got, r.IDs)
			}
		}
	}
	if fails > 0 {
		t.Errorf("%d of %d strings differ", fails, len(texts))
	}
}

// deepseekClassTexts puts the code points at the edges of DeepSeek-LLM's
// classes into contexts next to letters, CJK, digits, punctuation and
// spaces.
func deepseekClassTexts() []string {
	var cps []rune
	for _, r := range deepseekLetters {
		cps = append(cps, r[0]-1, r[0], r[1], r[1]+1)
	}
	cps = append(cps, 0x1F7D, 0x03CE, 0x1FBE, 0x03B9, 0x1FD3, 0x0390, 0x1FDB, 0x038A, 0x2126, 0x03A9, 0x212A, 'K',
		0x2D00, 0xA790, 0xAB30, 0x10570, 0x00AA, 0x01BB, 0x02B0, // cased or other letters outside the class
		' ', '!', '/', '0', '9', ':', '@', '[', '`', '{', '~', 0x7F, 0xFF00, 0xFF01, 0xFF0F, 0xFF10, 0xFF19, 0xFF1A,
		0xFF5E, 0xFF5F, 0x2017, 0x2018, 0x201F, 0x2020, 0x2FFF, 0x3000, 0x3001, 0x3002, 0x3003,
		0x07FF, 0x0800, 0x4DFF, 0x4E00, 0x9FA5, 0x9FA6, 0xABFF, 0xAC00, 0xD7A3, 0xD7FF, 0xE000,
		0x1680, 0x2000, 0x2028, 0x202F, 0x205F, 0x00A0, 0x0085, '\t', '\v', '\f', '\r', '\n',
		0x0660, 0xFF15, 0x00B2, 0x2160, 0x2460)
	contexts := []func(string) string{
		func(c string) string { return c },
		func(c string) string { return "αβ" + c + "γ" },
		func(c string) string { return "é" + c + "ñ" + c },
		func(c string) string { return "中" + c + "文" },
		func(c string) string { return " " + c + c + " x" },
		func(c string) string { return "ab" + c + "12" + c + "3" },
		func(c string) string { return "，" + c + "。" + c },
		func(c string) string { return "Ａ" + c + "ｚ " + c + "  " },
		func(c string) string { return "\u3000" + c + "\n" + c + "\t" },
		func(c string) string { return "Привет" + c + "мир" },
		func(c string) string { return "ḁ" + c + "ḁ" + c + "ḁ" }, // 3-byte neighbours shift the byte pairing
		func(c string) string { return "𐐨" + c + "ḁé" + c + "!" },
	}
	var texts []string
	for _, r := range cps {
		if r < 0 || (r >= 0xD800 && r <= 0xDFFF) {
			continue
		}
		for _, ctx := range contexts {
			texts = append(texts, ctx(string(r)))
		}
	}
	return texts
}

// writePairVocab writes a vocab-only GGUF with tokenizer.ggml.pre = pre
// whose vocabulary makes every pre-token boundary show in the ids: the 256
// byte symbols, then one token and one merge for every pair of them, the
// merges ranked in a random order drawn from seed. Inside a piece, BPE
// pairs the bytes by rank; a boundary changes the pairing (in one order or
// the other) and so the ids, which plain vocabularies rarely do for rare
// characters.
func writePairVocab(t *testing.T, pre string, seed uint64) string {
	t.Helper()
	tokens := make([]string, 0, 256+256*256)
	for b := range 256 {
		tokens = append(tokens, byteToStr[b])
	}
	merges := make([]string, 0, 256*256)
	for a := range 256 {
		for b := range 256 {
			tokens = append(tokens, byteToStr[a]+byteToStr[b])
			merges = append(merges, byteToStr[a]+" "+byteToStr[b])
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x9a1))
	rng.Shuffle(len(merges), func(i, j int) { merges[i], merges[j] = merges[j], merges[i] })
	types := make([]int32, len(tokens))
	for i := range types {
		types[i] = int32(TypeNormal)
	}
	n := uint32(len(tokens))
	return writeEdited(t, "vocab-deepseek-llm-bpe", map[string]any{
		"tokenizer.ggml.pre":              pre,
		"tokenizer.ggml.tokens":           tokens,
		"tokenizer.ggml.token_type":       types,
		"tokenizer.ggml.merges":           merges,
		"llama.vocab_size":                n,
		"tokenizer.ggml.bos_token_id":     n - 2,
		"tokenizer.ggml.eos_token_id":     n - 1,
		"tokenizer.ggml.padding_token_id": n - 1,
	})
}

// TestOraclePairVocab runs the class-edge strings and random strings
// through pair vocabularies (writePairVocab) under the pre-tokenizers of
// DeepSeek and of the Phi-3/Phi-4, Gemma 2 and SmolLM3 families, and
// compares the ids with llama.cpp: that checks where the pre-tokenizers
// cut, not only what one real vocabulary makes of it.
func TestOraclePairVocab(t *testing.T) {
	o := startOracle(t)
	edges := deepseekClassTexts()
	rng := rand.New(rand.NewPCG(77, diffSeed(t)))
	var random []string
	for range diffCount(t) / 5 {
		random = append(random, randText(rng, nil))
	}
	for _, pre := range []string{"deepseek-llm", "deepseek-coder", "gpt-4o", "llama-bpe", "smollm", "default"} {
		// All class-edge strings for DeepSeek-LLM, whose classes they
		// trace; every seventh for the others (llama.cpp runs gpt-4o's
		// regex through std::regex, which is slow).
		texts := slices.Clone(random)
		for i, s := range edges {
			if pre == "deepseek-llm" || i%7 == 0 {
				texts = append(texts, s)
			}
		}
		for _, seed := range []uint64{1, 2} {
			t.Run(fmt.Sprintf("%s/%d", pre, seed), func(t *testing.T) {
				path := writePairVocab(t, pre, seed)
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
				encodeLikeOracle(t, o, h, tok, texts, 5)
			})
		}
	}
}

// TestDeepseekLettersSorted guards isDeepseekLetter's binary search.
func TestDeepseekLettersSorted(t *testing.T) {
	for i, r := range deepseekLetters {
		if r[0] > r[1] || (i > 0 && r[0] <= deepseekLetters[i-1][1]+1) {
			t.Errorf("range %d %U-%U is empty, unsorted or touches the one before", i, r[0], r[1])
		}
	}
}
