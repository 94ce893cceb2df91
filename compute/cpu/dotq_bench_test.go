package cpu

import (
	"math/rand/v2"
	"testing"

	"github.com/webgguf/webgguf/gguf"
)

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
	fn := fusedDots[typ]
	b.SetBytes(k) // "MB/s" reads as million weights per second
	for range b.N {
		fn(raw, x, s16)
	}
}

func BenchmarkDotQ4K(b *testing.B)  { benchDot(b, gguf.TypeQ4_K) }
func BenchmarkDotQ6K(b *testing.B)  { benchDot(b, gguf.TypeQ6_K) }
func BenchmarkDotQ8_0(b *testing.B) { benchDot(b, gguf.TypeQ8_0) }
func BenchmarkDotQ4_0(b *testing.B) { benchDot(b, gguf.TypeQ4_0) }
