package tokenizer

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
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
// runs: encoding 1 MiB with the Llama 3 vocabulary must cost under 1 CPU
// second (under 2 wall seconds where CPU time is unavailable), so the check
// holds on a busy shared CI machine; the benchmark gives the real number.
func TestEncodeThroughput(t *testing.T) {
	if testing.Short() {
		t.Skip("timing check skipped in -short mode")
	}
	text := benchText()
	tok := loadTokenizer(t, "vocab-llama3-bpe")
	if _, err := tok.Encode(text, false, false); err != nil { // warm up
		t.Fatal(err)
	}
	const runs = 3
	cpu0, start := cpuSeconds(), time.Now()
	for i := 0; i < runs; i++ {
		if _, err := tok.Encode(text, false, false); err != nil {
			t.Fatal(err)
		}
	}
	wall := time.Since(start).Seconds() / runs
	cpu := (cpuSeconds() - cpu0) / runs
	t.Logf("llama3-bpe: %.1f MB/s wall, %.1f MB per CPU-second", float64(len(text))/wall/1e6, float64(len(text))/cpu/1e6)
	if cpu > 0 && cpu > 1 {
		t.Fatalf("1 MiB encode took %.2f CPU seconds", cpu)
	}
	if cpu == 0 && wall > 2 {
		t.Fatalf("1 MiB encode took %.2f s", wall)
	}
}
