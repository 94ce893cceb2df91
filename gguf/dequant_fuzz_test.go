package gguf

import (
	"errors"
	"math"
	"testing"
)

// FuzzDequantize feeds arbitrary bytes, types and counts to Dequantize: it
// must return values or a *CodecError, never panic, and never allocate for
// a count the source cannot back. A success must give exactly n values,
// the same as DequantizeInto gives.
func FuzzDequantize(f *testing.F) {
	f.Add(uint8(TypeQ4_K), 256, make([]byte, 144))
	f.Add(uint8(TypeQ6_K), 512, make([]byte, 420))
	f.Add(uint8(TypeIQ4_XS), 256, []byte{0xff, 0x7b, 1, 2, 3, 4, 5, 6})
	f.Add(uint8(TypeF16), 3, []byte{0, 0x7c, 0, 0xfc, 1, 0})
	f.Add(uint8(99), 32, make([]byte, 64))
	f.Fuzz(func(t *testing.T, typ uint8, n int, src []byte) {
		if n > 1<<24 {
			n %= 1 << 24 // the source bounds the allocation anyway; keep runs fast
		}
		out, err := Dequantize(GGMLType(typ), src, n)
		if err != nil {
			var ce *CodecError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is not a *CodecError", err)
			}
			if out != nil {
				t.Fatal("values returned with an error")
			}
			return
		}
		if len(out) != n {
			t.Fatalf("%d values, want %d", len(out), n)
		}
		// Dequantizing into a caller buffer must give the same values.
		dst := make([]float32, n)
		if err := DequantizeInto(dst, GGMLType(typ), src); err != nil {
			t.Fatal(err)
		}
		for i := range dst {
			a, b := dst[i], out[i]
			if a != b && !(math.IsNaN(float64(a)) && math.IsNaN(float64(b))) {
				t.Fatalf("value %d: %g vs %g", i, a, b)
			}
		}
	})
}
