package engine

import (
	"testing"

	"github.com/webgguf/webgguf/gguf"
)

// BenchmarkModelHash is the header hash every Load computes, on Llama 3's
// 128k-token vocabulary (its strings, merges, scores and token types).
func BenchmarkModelHash(b *testing.B) {
	f, err := gguf.OpenPath("../testdata/models/vocab-llama3-bpe.gguf")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	b.ReportAllocs()
	for b.Loop() {
		modelHash(f)
	}
}
