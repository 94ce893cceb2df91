package gguf

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// rmsBound is the largest accepted RMS(dequantize(quantize(x)) - x) /
// RMS(x) on gaussian data, per format: about 1.5× what ggml's own
// quantizers reach (the quantizers are byte-identical to ggml's, see
// TestQuantizeMatchesGGML), so a broken codec fails while noise does not.
var rmsBound = map[GGMLType]float64{
	TypeF32:    0,
	TypeF16:    4e-4,
	TypeBF16:   3e-3,
	TypeQ8_0:   8e-3,
	TypeQ6_K:   3e-2,
	TypeQ5_1:   6e-2,
	TypeQ5_0:   7e-2,
	TypeQ5_K:   5e-2,
	TypeQ4_1:   1.2e-1,
	TypeQ4_0:   1.4e-1,
	TypeQ4_K:   1.1e-1,
	TypeQ3_K:   2.4e-1,
	TypeQ2_K:   4.5e-1,
	TypeIQ4_NL: 1.2e-1,
	TypeIQ4_XS: 1.2e-1,
	// Ternary levels at the block's absolute maximum: made for weights that
	// are already ternary (TestQuantizeTernaryLossless), coarse on gaussian
	// data. I2_S keeps only signs and is checked there alone.
	TypeTQ1_0: 9e-1,
	TypeTQ2_0: 9e-1,
}

// TestQuantizeRoundTrip quantizes fresh random data (seed logged) with each
// quantizer, dequantizes it, and measures the error in float64 against the
// original values.
func TestQuantizeRoundTrip(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	x := make([]float32, 64*1024)
	for i := range x {
		x[i] = float32(rng.NormFloat64() * 0.02)
	}
	for typ := range quantizers {
		if typ == TypeI2_S {
			continue // sign-only: TestQuantizeTernaryLossless
		}
		bound, ok := rmsBound[typ]
		if !ok {
			t.Errorf("%s: no error bound stated", typ)
			continue
		}
		q, err := Quantize(typ, x)
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		if want, _ := typ.RowBytes(int64(len(x))); int64(len(q)) != want {
			t.Fatalf("%s: %d bytes, want %d", typ, len(q), want)
		}
		y, err := Dequantize(typ, q, len(x))
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		var se, sx float64
		for i := range x {
			d := float64(y[i]) - float64(x[i])
			se += d * d
			sx += float64(x[i]) * float64(x[i])
		}
		rel := math.Sqrt(se / sx)
		t.Logf("%-5s relative RMS error %.5f (bound %.5f)", typ, rel, bound)
		if rel > bound {
			t.Errorf("%s: relative RMS error %.5f exceeds %.5f", typ, rel, bound)
		}
	}
}

// ternaryData makes n weights in {-a, 0, +a} with one a per 256-element
// block (a an f16 value, so TQ's f16 block scale holds it exactly) or, with
// perTensor, one a for all (I2_S's f32 scale), and every block holding a
// nonzero.
func ternaryData(rng *rand.Rand, n int, perTensor bool) []float32 {
	x := make([]float32, n)
	a := F16ToF32(F32ToF16(float32(0.01 + rng.Float64())))
	for i := range x {
		if i%256 == 0 && !perTensor {
			a = F16ToF32(F32ToF16(float32(0.01 + rng.Float64())))
		}
		x[i] = float32(rng.IntN(3)-1) * a
		if i%256 == 0 {
			x[i] = -a
		}
	}
	return x
}

// TestQuantizeTernaryLossless: on ternary weights the three ternary formats
// give back exactly their input, and I2_S stores the bytes its layout says
// (element j of a 128-block in bits 6-2(j/32) of byte j%32, as value+1).
func TestQuantizeTernaryLossless(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 5))
	for _, typ := range []GGMLType{TypeTQ1_0, TypeTQ2_0, TypeI2_S} {
		x := ternaryData(rng, 16*1024, typ == TypeI2_S)
		q, err := Quantize(typ, x)
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		if want, _ := typ.TensorBytes(int64(len(x))); int64(len(q)) != want {
			t.Fatalf("%s: %d bytes, want %d", typ, len(q), want)
		}
		y, err := Dequantize(typ, q, len(x))
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		for i := range x {
			if y[i] != x[i] {
				t.Fatalf("%s: element %d = %g, want %g", typ, i, y[i], x[i])
			}
		}
	}
	// I2_S bytes from the layout's definition, independent of quantI2S.
	x := ternaryData(rng, 512, true)
	q, _ := Quantize(TypeI2_S, x)
	if len(q) != 512/4+32 {
		t.Fatalf("i2_s: %d bytes for 512 elements, want %d", len(q), 512/4+32)
	}
	amax := float32(0)
	for _, v := range x {
		amax = max(amax, abs32(v))
	}
	for i, v := range x {
		code := byte(1)
		if v > 0 {
			code = 2
		} else if v < 0 {
			code = 0
		}
		blk, j := i/128, i%128
		if got := q[blk*32+j%32] >> (6 - 2*(j/32)) & 3; got != code {
			t.Fatalf("i2_s: element %d coded %d, want %d", i, got, code)
		}
	}
	if s := I2SScale(q); s != amax {
		t.Fatalf("i2_s: scale %g, want %g", s, amax)
	}
}

// TestQuantizeQ8_0ElementBound checks q8_0's per-element guarantee: every
// value is within half a quantization step (plus the f16 rounding of the
// scale) of the input.
func TestQuantizeQ8_0ElementBound(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 4))
	x := make([]float32, 32*512)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	q, _ := Quantize(TypeQ8_0, x)
	y, _ := Dequantize(TypeQ8_0, q, len(x))
	for b := 0; b < len(x); b += 32 {
		var amax float64
		for _, v := range x[b : b+32] {
			amax = math.Max(amax, math.Abs(float64(v)))
		}
		step := amax / 127
		for i := b; i < b+32; i++ {
			// half a step, plus up to 2^-11 relative error of the f16 scale
			// multiplied by the largest level (127).
			lim := step/2 + 127*step*math.Ldexp(1, -11) + 1e-12
			if e := math.Abs(float64(y[i]) - float64(x[i])); e > lim {
				t.Fatalf("element %d: error %g > %g", i, e, lim)
			}
		}
	}
}

func TestCodecErrors(t *testing.T) {
	var ce *CodecError
	cases := []struct {
		name string
		err  error
	}{
		{"unknown type", func() error { _, err := Dequantize(GGMLType(99), make([]byte, 64), 32); return err }()},
		{"unsupported type", func() error { _, err := Dequantize(TypeIQ2_XXS, make([]byte, 66), 256); return err }()},
		{"partial block", func() error { _, err := Dequantize(TypeQ4_0, make([]byte, 18), 31); return err }()},
		{"negative n", func() error { _, err := Dequantize(TypeF32, nil, -4); return err }()},
		{"short src", func() error { _, err := Dequantize(TypeQ6_K, make([]byte, 209), 256); return err }()},
		{"short src into", DequantizeInto(make([]float32, 64), TypeQ8_0, make([]byte, 67))},
		{"partial block into", DequantizeInto(make([]float32, 100), TypeQ4_K, make([]byte, 1000))},
		{"quantize partial", func() error { _, err := Quantize(TypeQ4_K, make([]float32, 255)); return err }()},
		{"quantize NaN", func() error {
			x := make([]float32, 32)
			x[7] = float32(math.NaN())
			_, err := Quantize(TypeQ8_0, x)
			return err
		}()},
		{"quantize inf", func() error {
			x := make([]float32, 32)
			x[3] = float32(math.Inf(-1))
			_, err := Quantize(TypeQ4_0, x)
			return err
		}()},
		{"quantize unsupported", func() error { _, err := Quantize(TypeIQ2_XXS, make([]float32, 256)); return err }()},
		{"quantize into wrong dst", QuantizeInto(make([]byte, 33), TypeQ8_0, make([]float32, 32))},
	}
	for _, c := range cases {
		if !errors.As(c.err, &ce) {
			t.Errorf("%s: got %v, want a *CodecError", c.name, c.err)
			continue
		}
		if ce.Error() == "" || ce.Field == "" {
			t.Errorf("%s: error does not name its field: %+v", c.name, ce)
		}
	}
	// A huge n with a tiny source must fail before allocating.
	if _, err := Dequantize(TypeF32, make([]byte, 8), math.MaxInt32); !errors.As(err, &ce) || ce.Field != "src" {
		t.Errorf("huge n: %v", err)
	}
}
