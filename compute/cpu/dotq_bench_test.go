package cpu

import (
	"math/rand/v2"
	"testing"

	"github.com/webgguf/webgguf/gguf"
)

// benchDot times one fused dot of 4096 weights with each kernel set
// ("table": dotq.go, "wide": dotq_wide.go) that has one for typ; the
// build's choice is whichever fusedDots holds (wide under wasm).
func benchDot(b *testing.B, typ gguf.GGMLType) {
	rng := rand.New(rand.NewPCG(3, 4))
	const k = 4096
	wf, x := make([]float32, k), make([]float32, k)
	for i := range wf {
		wf[i], x[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
	}
	raw, err := gguf.Quantize(typ, wf)
	if err != nil {
		b.Fatal(err)
	}
	s16 := make([]float32, k/16)
	sums16(s16, x)
	sets := map[string]rowDot{"table": tableDots[typ]}
	if fn := wideDots[typ.String()]; fn != nil {
		sets["wide"] = fn
	}
	if typ == gguf.TypeQ4_K {
		xp, xd := make([]uint64, xqWords(k)), make([]float32, k/32)
		quantizeXQ(xp, xd, x)
		b.Run("xq", func(b *testing.B) {
			b.SetBytes(k)
			defer cpuPerOp(b)()
			for range b.N {
				dotQ4KXQ(raw, xp, xd, s16)
			}
		})
		b.Run("xq2", func(b *testing.B) {
			b.SetBytes(2 * k)
			defer cpuPerOp(b)()
			for range b.N {
				dotQ4KXQ2(raw, raw, xp, xd, s16)
			}
		})
	}
	if typ == gguf.TypeQ6_K {
		xp, xs, xu := make([]uint64, x16Words(k)), make([]float32, k/256), make([]int32, k/16)
		quantizeX16(xp, xs, xu, x)
		b.Run("x16", func(b *testing.B) {
			b.SetBytes(k)
			defer cpuPerOp(b)()
			for range b.N {
				dotQ6KX16(raw, xp, xs, xu)
			}
		})
	}
	for name, fn := range sets {
		if fn == nil {
			continue
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(k) // "MB/s" reads as million weights per second
			defer cpuPerOp(b)()
			for range b.N {
				fn(raw, x, s16)
			}
		})
	}
}

func BenchmarkDotQ4K(b *testing.B)   { benchDot(b, gguf.TypeQ4_K) }
func BenchmarkDotQ6K(b *testing.B)   { benchDot(b, gguf.TypeQ6_K) }
func BenchmarkDotQ8_0(b *testing.B)  { benchDot(b, gguf.TypeQ8_0) }
func BenchmarkDotQ4_0(b *testing.B)  { benchDot(b, gguf.TypeQ4_0) }
func BenchmarkDotTQ1_0(b *testing.B) { benchDot(b, gguf.TypeTQ1_0) }
func BenchmarkDotTQ2_0(b *testing.B) { benchDot(b, gguf.TypeTQ2_0) }

// cpuPerOp reports the CPU time per iteration as "cpu-ns/op" when the
// returned function runs: with the machine shared, wall time per op
// varies by 2× from run to run, CPU time much less.
func cpuPerOp(b *testing.B) func() {
	c0 := cpuNow()
	return func() { b.ReportMetric(float64(cpuNow()-c0)/float64(b.N), "cpu-ns/op") }
}

// tableDots are dotq.go's kernels, whatever the build selected.
var tableDots = map[gguf.GGMLType]rowDot{
	gguf.TypeQ8_0: dotQ8_0, gguf.TypeQ4_0: dotQ4_0, gguf.TypeQ4_K: dotQ4K, gguf.TypeQ6_K: dotQ6K,
	gguf.TypeTQ1_0: dotTQ1_0, gguf.TypeTQ2_0: dotTQ2_0,
}
