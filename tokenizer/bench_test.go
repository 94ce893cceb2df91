package tokenizer

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// benchText is ~1 MiB of deterministic prose-and-code-like text.
func benchText() string {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"the", "model", "tokenizer", "runs", "in", "a", "browser", "with", "WebGPU", "and", "streams", "weights", "from", "OPFS", "func", "main()", "{", "}", "return", "err", "x", ":=", "1024", "3.14", "naïve", "café", "日本語", "Привет", "😀", "it's", "we'll", "don't", "\n", "\t", "  ", "(", ")", ",", ".", "!", "?"}
	var b strings.Builder
	for b.Len() < 1<<20 {
		b.WriteString(words[rng.IntN(len(words))])
		if rng.IntN(3) > 0 {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// BenchmarkEncode1MiB tokenizes 1 MiB per iteration; b.SetBytes makes
// `go test -bench` report MB/s (wall time), and MB/cpu-s divides by the
// process CPU time instead (GC workers included), which is what a quiet
// machine's MB/s would be when other jobs share the cores.
func BenchmarkEncode1MiB(b *testing.B) {
	text := benchText()
	for _, model := range []string{"vocab-llama-spm", "vocab-llama3-bpe", "vocab-qwen3-bpe", "gotiny-q4_k_m"} {
		tok := loadTokenizer(b, model)
		b.Run(model, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			cpu0, n := cpuSeconds(), 0
			for b.Loop() {
				if _, err := tok.Encode(text, true, true); err != nil {
					b.Fatal(err)
				}
				n++
			}
			if cpu := cpuSeconds() - cpu0; cpu > 0 {
				b.ReportMetric(float64(n*len(text))/1e6/cpu, "MB/cpu-s")
			}
		})
	}
}

// TestEncodeThroughput guards the 5 MB/s target loosely in ordinary test
// runs (a 1 MiB encode must finish within 2 s even on a slow, shared CI
// core); the benchmark gives the real number.
func TestEncodeThroughput(t *testing.T) {
	if testing.Short() {
		t.Skip("timing check skipped in -short mode")
	}
	text := benchText()
	tok := loadTokenizer(t, "vocab-llama3-bpe")
	res := testing.Benchmark(func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := tok.Encode(text, false, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	perOp := res.NsPerOp()
	if perOp > 2e9 {
		t.Fatalf("1 MiB encode took %.2fs, want < 2s", float64(perOp)/1e9)
	}
	t.Logf("llama3-bpe: %.1f MB/s", float64(len(text))/(float64(perOp)/1e9)/1e6)
}
