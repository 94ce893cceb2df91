package cpu

import (
	"math/rand/v2"
	"testing"

	"github.com/webgguf/webgguf/gguf"
)

// BenchmarkPrefillQ4K times one q4_K weight row of 512 against 64 token
// rows: expanded once and multiplied four token rows at a time (dot2x4,
// the f32 prefill path) or with the quantized-activation kernel per token
// row (dotq_xq.go). MB/s reads as million weight-token products per second.
func BenchmarkPrefillQ4K(b *testing.B) {
	rng := rand.New(rand.NewPCG(11, 12))
	const k, n = 512, 64
	wf := make([]float32, 2*k)
	for i := range wf {
		wf[i] = float32(rng.NormFloat64())
	}
	raw, err := gguf.Quantize(gguf.TypeQ4_K, wf)
	if err != nil {
		b.Fatal(err)
	}
	rb := len(raw) / 2
	x := make([]float32, n*k)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	b.Run("dot2x4", func(b *testing.B) {
		b.SetBytes(2 * k * n)
		w0, w1 := make([]float32, k), make([]float32, k)
		var sink float32
		defer cpuPerOp(b)()
		for range b.N {
			_ = gguf.DequantizeInto(w0, gguf.TypeQ4_K, raw[:rb])
			_ = gguf.DequantizeInto(w1, gguf.TypeQ4_K, raw[rb:])
			for t := 0; t < n; t += 4 {
				s := dot2x4(w0, w1, x[t*k:(t+4)*k])
				sink += s[0]
			}
		}
		_ = sink
	})
	b.Run("xq", func(b *testing.B) {
		b.SetBytes(2 * k * n)
		xp, xd, s16 := make([]uint64, n*xqWords(k)), make([]float32, n*k/32), make([]float32, n*k/16)
		for t := range n {
			quantizeXQ(xp[t*xqWords(k):(t+1)*xqWords(k)], xd[t*k/32:(t+1)*k/32], x[t*k:(t+1)*k])
			sums16(s16[t*k/16:(t+1)*k/16], x[t*k:(t+1)*k])
		}
		var sink float32
		defer cpuPerOp(b)()
		for range b.N {
			for r := range 2 {
				for t := range n {
					sink += dotQ4KXQ(raw[r*rb:(r+1)*rb], xp[t*xqWords(k):(t+1)*xqWords(k)], xd[t*k/32:(t+1)*k/32], s16[t*k/16:(t+1)*k/16])
				}
			}
		}
		_ = sink
	})
	b.Run("xq4", func(b *testing.B) {
		b.SetBytes(2 * k * n)
		xp, xd, s16 := make([]uint64, n*xqWords(k)), make([]float32, n*k/32), make([]float32, n*k/16)
		for t := range n {
			quantizeXQ(xp[t*xqWords(k):(t+1)*xqWords(k)], xd[t*k/32:(t+1)*k/32], x[t*k:(t+1)*k])
			sums16(s16[t*k/16:(t+1)*k/16], x[t*k:(t+1)*k])
		}
		var sink float32
		defer cpuPerOp(b)()
		for range b.N {
			for r := range 2 {
				for t := 0; t < n; t += 4 {
					s := dotQ4KXQ4(raw[r*rb:(r+1)*rb], xp[t*xqWords(k):(t+4)*xqWords(k)], xd[t*k/32:(t+4)*k/32], s16[t*k/16:(t+4)*k/16])
					sink += s[0]
				}
			}
		}
		_ = sink
	})
}
