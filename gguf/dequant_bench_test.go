package gguf

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkDequantize reports dequantization throughput per type, in
// output values (SetBytes counts 4 bytes per float32 written).
func BenchmarkDequantize(b *testing.B) {
	const n = 1 << 20
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	dst := make([]float32, n)
	for _, typ := range []GGMLType{TypeF16, TypeBF16, TypeQ4_0, TypeQ4_1, TypeQ5_0, TypeQ5_1, TypeQ8_0, TypeQ2_K, TypeQ3_K, TypeQ4_K, TypeQ5_K, TypeQ6_K} {
		q, err := Quantize(typ, x)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(typ.String(), func(b *testing.B) {
			b.SetBytes(4 * n)
			for b.Loop() {
				if err := DequantizeInto(dst, typ, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkQuantize reports quantization throughput per type (input bytes).
func BenchmarkQuantize(b *testing.B) {
	const n = 1 << 18
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	for _, typ := range []GGMLType{TypeQ4_0, TypeQ8_0, TypeQ4_K, TypeQ6_K, TypeQ2_K, TypeQ3_K, TypeQ5_K} {
		dst := make([]byte, func() int64 { r, _ := typ.RowBytes(n); return r }())
		b.Run(typ.String(), func(b *testing.B) {
			b.SetBytes(4 * n)
			for b.Loop() {
				if err := QuantizeInto(dst, typ, x); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
