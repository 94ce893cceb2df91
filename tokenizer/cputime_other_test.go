//go:build !unix

package tokenizer

// cpuSeconds is unavailable here; the per-CPU-second metric is omitted.
func cpuSeconds() float64 { return 0 }
