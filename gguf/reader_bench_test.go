package gguf

import (
	"bytes"
	"testing"
)

// BenchmarkOpenVocab parses the 151669-token Qwen3 vocabulary (tokens,
// token types and 151387 merges) from memory.
func BenchmarkOpenVocab(b *testing.B) {
	data := readFixture(b, "vocab-qwen3-bpe.gguf")
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Open(bytes.NewReader(data), int64(len(data))); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStreamTensor streams the 16 MB gotiny model's tensors in 1 MiB
// chunks from memory.
func BenchmarkStreamTensor(b *testing.B) {
	data := readFixture(b, "gotiny-q4_k_m.gguf")
	f, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)) - f.DataOffset)
	buf := make([]byte, DefaultChunkSize)
	for b.Loop() {
		for i := range f.Tensors {
			if err := f.StreamTensor(&f.Tensors[i], buf, func(int64, []byte) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
	}
}
