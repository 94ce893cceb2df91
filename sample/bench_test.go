package sample

import (
	"math/rand/v2"
	"testing"
)

// benchVocab is Qwen's vocabulary size, the largest common in small models.
const benchVocab = 151936

func benchmarkSample(b *testing.B, p Params) {
	rng := rand.New(rand.NewPCG(9, 10))
	row := randomRow(rng, benchVocab, 3)
	s, err := New(benchVocab, p)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 64; i++ {
		s.Accept(int32(rng.IntN(benchVocab)))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Sample(row); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSampleDefaults is llama.cpp's default chain (top-k 40, top-p
// 0.95, min-p 0.05, temperature 0.8, penalties over 64 tokens).
func BenchmarkSampleDefaults(b *testing.B) {
	p := Defaults()
	p.RepeatPenalty = 1.1
	benchmarkSample(b, p)
}

// BenchmarkSampleTopPOnly sorts without a top-k in front (worst common case).
func BenchmarkSampleTopPOnly(b *testing.B) {
	benchmarkSample(b, Params{Temperature: 0.9, TopP: 0.9, TypicalP: 1})
}

// BenchmarkSampleGreedy is temperature 0.
func BenchmarkSampleGreedy(b *testing.B) {
	benchmarkSample(b, Params{TopP: 1, TypicalP: 1})
}
