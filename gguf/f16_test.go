package gguf

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// halfValue decodes binary16 bits from the IEEE 754 definition in float64,
// independently of F16ToF32's bit manipulation.
func halfValue(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	e := int(h>>10) & 0x1f
	m := float64(h & 0x3ff)
	switch e {
	case 0:
		return sign * m / 1024 * math.Pow(2, -14)
	case 0x1f:
		if m != 0 {
			return math.NaN()
		}
		return sign * math.Inf(1)
	}
	return sign * (1 + m/1024) * math.Pow(2, float64(e-15))
}

func TestF16ToF32AllValues(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		got := float64(F16ToF32(uint16(h)))
		want := halfValue(uint16(h))
		if math.IsNaN(want) {
			if !math.IsNaN(got) {
				t.Fatalf("F16ToF32(%#04x) = %g, want NaN", h, got)
			}
			continue
		}
		if got != want || math.Signbit(got) != math.Signbit(want) {
			t.Fatalf("F16ToF32(%#04x) = %g, want %g", h, got, want)
		}
		// Every finite half and infinity must survive the round trip.
		if back := F32ToF16(float32(got)); back != uint16(h) {
			t.Fatalf("F32ToF16(F16ToF32(%#04x)) = %#04x", h, back)
		}
	}
}

// TestF32ToF16Rounding checks round-to-nearest-even against a float64
// search over neighbouring halves, on random floats of every magnitude and
// on the exact midpoints between consecutive halves.
func TestF32ToF16Rounding(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	check := func(f float32) {
		h := F32ToF16(f)
		got := halfValue(h)
		x := float64(f)
		if math.Abs(x) >= 65520 { // ≥ max half + half an ulp rounds to inf
			if !math.IsInf(got, int(math.Copysign(1, x))) {
				t.Fatalf("F32ToF16(%g) = %#04x, want inf", f, h)
			}
			return
		}
		err := math.Abs(got - x)
		for _, nb := range []uint16{h - 1, h + 1} {
			v := halfValue(nb)
			if math.IsNaN(v) || math.IsInf(v, 0) || (nb^h)&0x8000 != 0 {
				continue
			}
			e := math.Abs(v - x)
			if e < err || (e == err && h&1 == 1) {
				t.Fatalf("F32ToF16(%g) = %#04x (%g), but %#04x (%g) is nearer or the even tie", f, h, got, nb, v)
			}
		}
	}
	for i := 0; i < 200000; i++ {
		check(math.Float32frombits(rng.Uint32() & 0xc7ffffff)) // exponents up to ~2^17
	}
	for h := uint16(0); h < 0x7bff; h++ {
		mid := (halfValue(h) + halfValue(h+1)) / 2
		check(float32(mid))
		check(-float32(mid))
	}
}

func TestBF16(t *testing.T) {
	for _, c := range []struct {
		f float32
		h uint16
	}{{1, 0x3f80}, {-2, 0xc000}, {float32(math.Inf(1)), 0x7f80}, {1.00390625, 0x3f80}, {1.01171875, 0x3f82}, {1.0078125, 0x3f81}} {
		if got := F32ToBF16(c.f); got != c.h {
			t.Errorf("F32ToBF16(%g) = %#04x, want %#04x", c.f, got, c.h)
		}
		if got := BF16ToF32(c.h); got != float32(halfBF(c.h)) {
			t.Errorf("BF16ToF32(%#04x) = %g", c.h, got)
		}
	}
	if !math.IsNaN(float64(BF16ToF32(F32ToBF16(float32(math.NaN()))))) {
		t.Error("bf16 NaN did not survive")
	}
}

// halfBF decodes bfloat16 from its definition (sign, 8-bit exponent, 7-bit
// mantissa) for finite normal values.
func halfBF(h uint16) float64 {
	s := 1.0
	if h&0x8000 != 0 {
		s = -1
	}
	e := int(h>>7) & 0xff
	if e == 0xff {
		return s * math.Inf(1)
	}
	return s * (1 + float64(h&0x7f)/128) * math.Pow(2, float64(e-127))
}
