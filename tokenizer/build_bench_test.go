package tokenizer

import (
	"path/filepath"
	"testing"

	"github.com/webgguf/webgguf/gguf"
)

// BenchmarkNewLlama3 builds the Llama-3 tokenizer (128k tokens, 280k
// merges) from its vocabulary: the tokenizer's share of a model load, the
// largest CPU step of a browser load (run it under wasm with
// GOOS=js GOARCH=wasm go test -exec=go_js_wasm_exec).
func BenchmarkNewLlama3(b *testing.B) {
	f, err := gguf.OpenPath(filepath.Join("..", "testdata", "models", "vocab-llama3-bpe.gguf"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	b.Run("vocab", func(b *testing.B) {
		for b.Loop() {
			if _, err := VocabFromGGUF(f); err != nil {
				b.Fatal(err)
			}
		}
	})
	v, err := VocabFromGGUF(f)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("new", func(b *testing.B) {
		for b.Loop() {
			if _, err := New(v); err != nil {
				b.Fatal(err)
			}
		}
	})
	tokenID := newStrIndex(v.Tokens)
	b.Run("merges", func(b *testing.B) {
		for b.Loop() {
			if _, err := newBPE(v.Merges, tokenID, len(v.Tokens)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
