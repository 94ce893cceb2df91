package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/webgguf/webgguf/engine"
)

// benchIDs returns n token ids of the model's vocabulary (a fixed
// non-trivial pattern; speed does not depend on the ids).
func benchIDs(n, vocab int) []int32 {
	ids := make([]int32, n)
	for i := range ids {
		ids[i] = int32((i*7919 + 13) % vocab)
	}
	return ids
}

// BenchmarkGotinyPrefill measures prefill of 128 tokens (one micro-batch)
// on the CPU backend (threads = GOMAXPROCS, set with -cpu).
func BenchmarkGotinyPrefill(b *testing.B) {
	e := loadFixture(b, "gotiny-q4_k_m", engine.Options{NCtx: 512, NUbatch: 128})
	ids := benchIDs(128, e.Config().NVocab)
	ctx := context.Background()
	b.ResetTimer()
	c0 := processCPU()
	for range b.N {
		e.Reset()
		if _, err := e.Eval(ctx, ids, engine.LogitsLast); err != nil {
			b.Fatal(err)
		}
	}
	report(b, 128*b.N, processCPU()-c0)
}

// BenchmarkGotinyDecode measures single-token decode at depth 0..63.
func BenchmarkGotinyDecode(b *testing.B) {
	e := loadFixture(b, "gotiny-q4_k_m", engine.Options{NCtx: 512, NUbatch: 128})
	ids := benchIDs(64, e.Config().NVocab)
	ctx := context.Background()
	b.ResetTimer()
	c0 := processCPU()
	n := 0
	for range b.N {
		e.Reset()
		for _, id := range ids {
			if _, err := e.Eval(ctx, []int32{id}, engine.LogitsLast); err != nil {
				b.Fatal(err)
			}
			n++
		}
	}
	report(b, n, processCPU()-c0)
}

// report adds tok/s (wall) and, where CPU time is measurable, tokens per
// CPU-second (cpu-tok/s; at -cpu 1 the single-core speed).
func report(b *testing.B, n int, cpu time.Duration) {
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "tok/s")
	if cpu > 0 {
		b.ReportMetric(float64(n)/cpu.Seconds(), "cpu-tok/s")
	}
}
