package grammar

import (
	"path/filepath"
	"testing"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/tokenizer"
)

func loadTokenizer(tb testing.TB, name string) *tokenizer.Tokenizer {
	tb.Helper()
	f, err := gguf.OpenPath(filepath.Join("..", "..", "testdata", "models", name))
	if err != nil {
		tb.Skipf("fixture: %v", err)
	}
	t, err := tokenizer.FromGGUF(f)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// On Llama 3's 128k vocabulary the trie mask equals llama.cpp's per-token
// rule along a JSON document fed token by token.
func TestLlama3VocabJSON(t *testing.T) {
	tk := loadTokenizer(t, "vocab-llama3-bpe.gguf")
	v := TokenizerVocab(tk, 0)
	c, err := ParseCompile(readFile(t, "testdata/json.gbnf"))
	if err != nil {
		t.Fatal(err)
	}
	doc := `{"name": "Zoë", "tags": ["a", "日本"], "n": -12, "ok": true}`
	ids, err := tk.Encode(doc, false, false)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMatcher(c, v)
	mask := make([]uint64, (v.Size()+63)/64)
	for i, id := range ids {
		if i%3 == 0 || i == len(ids)-1 {
			m.Allowed(mask)
			want := naiveAllowed(m)
			for j := range want {
				if maskBit(mask, j) != want[j] {
					t.Fatalf("step %d: token %d %q: trie %v, llama.cpp's rule %v", i, j, v.pieces[j], maskBit(mask, j), want[j])
				}
			}
			if !maskBit(mask, int(id)) {
				t.Fatalf("step %d: the document's token %d %q is masked", i, id, v.pieces[id])
			}
		}
		if err := m.Accept(id); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	if !m.Complete() {
		t.Fatal("document not complete")
	}
	m.Allowed(mask)
	if !maskBit(mask, int(tk.EOS())) {
		t.Fatal("EOS masked after a complete document")
	}
}

// BenchmarkMaskLlama3: one Allowed over the 128k vocabulary in typical JSON
// states (inside a string, where nearly every token is allowed, and between
// values), recomputed (walk: the trie walk, set transitions kept) and
// from the per-state cache (cached).
func BenchmarkMaskLlama3(b *testing.B) {
	tk := loadTokenizer(b, "vocab-llama3-bpe.gguf")
	v := TokenizerVocab(tk, 0)
	c, err := ParseCompile(readFile(b, "testdata/json.gbnf"))
	if err != nil {
		b.Fatal(err)
	}
	for _, st := range []struct{ name, prefix string }{
		{"start", ""},
		{"in-string", `{"name": "Zo`},
		{"after-value", `{"name": "Zoe", "n": 12`},
	} {
		for _, mode := range []string{"walk", "cached"} {
			b.Run(st.name+"/"+mode, func(b *testing.B) {
				m := NewMatcher(c, v)
				m.noMaskCache = mode == "walk"
				if err := m.AcceptString(st.prefix); err != nil {
					b.Fatal(err)
				}
				mask := make([]uint64, (v.Size()+63)/64)
				n := 0
				for b.Loop() {
					n = m.Allowed(mask)
				}
				b.ReportMetric(float64(n), "allowed")
			})
		}
	}
}

// BenchmarkVocabLlama3 is the one-time preparation of the 128k vocabulary.
func BenchmarkVocabLlama3(b *testing.B) {
	tk := loadTokenizer(b, "vocab-llama3-bpe.gguf")
	for b.Loop() {
		TokenizerVocab(tk, 0)
	}
}
