package cpu

import (
	"encoding/binary"
	"math"

	"github.com/webgguf/webgguf/gguf"
)

// rowDot is a fused dequantize-and-dot kernel: the inner product of one
// weight row, in its ggml encoding, with x. s16 holds the sums of x over
// consecutive 16-element groups, so offsets (q4_0's −8, q6_K's −32, the
// K-quants' mins) cost one multiply per group instead of one per element.
// Decode uses these: each weight row is used once per token, so expanding
// it to f32 first would only add a store and a load per element.
type rowDot func(w []byte, x, s16 []float32) float32

// fusedDots are the formats of the common model files; the others go
// through gguf.DequantizeInto and dot.
var fusedDots = map[gguf.GGMLType]rowDot{
	gguf.TypeF32:   dotF32,
	gguf.TypeF16:   dotF16,
	gguf.TypeQ8_0:  dotQ8_0,
	gguf.TypeQ4_0:  dotQ4_0,
	gguf.TypeQ4_K:  dotQ4K,
	gguf.TypeQ6_K:  dotQ6K,
	gguf.TypeTQ1_0: dotTQ1_0,
	gguf.TypeTQ2_0: dotTQ2_0,
}

// f16Table maps every half-precision bit pattern to float32 (256 KiB),
// cheaper than converting per element in the inner loop.
var f16Table = func() *[1 << 16]float32 {
	var t [1 << 16]float32
	for i := range t {
		t[i] = gguf.F16ToF32(uint16(i))
	}
	return &t
}()

// loNib and hiNib map a byte to its low and high nibble as float32: one
// L1 load instead of mask, shift and int-to-float conversion.
var loNib, hiNib = func() (lo, hi [256]float32) {
	for i := range 256 {
		lo[i], hi[i] = float32(i&0xf), float32(i>>4)
	}
	return
}()

// i8f maps a byte to its int8 value as float32 (q8_0).
var i8f = func() (t [256]float32) {
	for i := range t {
		t[i] = float32(int8(uint8(i)))
	}
	return
}()

// six maps a 6-bit value to float32 (q6_K), again a load instead of a
// conversion.
var six = func() (t [64]float32) {
	for i := range t {
		t[i] = float32(i)
	}
	return
}()

func f16(b []byte) float32 { return f16Table[binary.LittleEndian.Uint16(b)] }

// sums16 writes the sums of x over 16-element groups into s.
func sums16(s, x []float32) {
	for g := range s {
		// Written out: a loop back-edge per element is costly under wasm.
		v := (*[16]float32)(x[g*16:])
		s[g] = ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7])) +
			(((v[8] + v[9]) + (v[10] + v[11])) + ((v[12] + v[13]) + (v[14] + v[15])))
	}
}

func dotF32(w []byte, x, _ []float32) float32 {
	var s0, s1 float32
	i := 0
	for ; i+2 <= len(x); i += 2 {
		s0 += math.Float32frombits(binary.LittleEndian.Uint32(w[4*i:])) * x[i]
		s1 += math.Float32frombits(binary.LittleEndian.Uint32(w[4*i+4:])) * x[i+1]
	}
	if i < len(x) {
		s0 += math.Float32frombits(binary.LittleEndian.Uint32(w[4*i:])) * x[i]
	}
	return s0 + s1
}

func dotF16(w []byte, x, _ []float32) float32 {
	var s0, s1 float32
	i := 0
	for ; i+2 <= len(x); i += 2 {
		s0 += f16(w[2*i:]) * x[i]
		s1 += f16(w[2*i+2:]) * x[i+1]
	}
	if i < len(x) {
		s0 += f16(w[2*i:]) * x[i]
	}
	return s0 + s1
}

// q8_0: d f16, qs int8[32]; value q·d.
func dotQ8_0(w []byte, x, _ []float32) float32 {
	var sum float32
	for i := 0; i+32 <= len(x); i += 32 {
		b := (*[34]byte)(w[i/32*34:])
		xb := (*[32]float32)(x[i:])
		var a0, a1 float32
		for j := 0; j < 32; j += 2 {
			a0 += i8f[b[2+j]] * xb[j]
			a1 += i8f[b[3+j]] * xb[j+1]
		}
		sum += f16(b[:]) * (a0 + a1)
	}
	return sum
}

// q4_0: d f16, qs[16]; element j is the low nibble of qs[j], j+16 the high
// one; value (q−8)·d.
func dotQ4_0(w []byte, x, s16 []float32) float32 {
	var sum float32
	for i := 0; i+32 <= len(x); i += 32 {
		b := (*[18]byte)(w[i/32*18:])
		xb := (*[32]float32)(x[i:])
		var a0, a1 float32
		for j := range 16 {
			q := b[2+j]
			a0 += loNib[q] * xb[j]
			a1 += hiNib[q] * xb[j+16]
		}
		sum += f16(b[:]) * (a0 + a1 - 8*(s16[i/16]+s16[i/16+1]))
	}
	return sum
}

// scaleMinK4 unpacks the j-th 6-bit scale and min of a q4_K/q5_K block.
func scaleMinK4(j int, q *[12]byte) (sc, m uint8) {
	if j < 4 {
		return q[j] & 63, q[j+4] & 63
	}
	return q[j+4]&0xf | (q[j-4]>>6)<<4, q[j+4]>>4 | (q[j]>>6)<<4
}

// q4_K: d, dmin f16, scales[12] (8 pairs of 6-bit scale and min), qs[128];
// each 64 elements: 32 low nibbles then 32 high nibbles, value d·sc·q −
// dmin·m.
func dotQ4K(w []byte, x, s16 []float32) float32 {
	var sum float32
	for i := 0; i+256 <= len(x); i += 256 {
		b := (*[144]byte)(w[i/256*144:])
		d, dmin := f16(b[0:]), f16(b[2:])
		scales := (*[12]byte)(b[4:16])
		s := s16[i/16:]
		for j, is := 0, 0; j < 256; j, is = j+64, is+2 {
			q := (*[32]byte)(b[16+j/2:])
			x1 := (*[32]float32)(x[i+j:])
			x2 := (*[32]float32)(x[i+j+32:])
			// Four chains: the adds' latency, not the multiplies, bound
			// a scalar loop.
			var a1, a2, b1, b2 float32
			for l := 0; l < 32; l += 2 {
				q0, q1 := q[l], q[l+1]
				a1 += loNib[q0] * x1[l]
				a2 += hiNib[q0] * x2[l]
				b1 += loNib[q1] * x1[l+1]
				b2 += hiNib[q1] * x2[l+1]
			}
			a1 += b1
			a2 += b2
			sc1, m1 := scaleMinK4(is, scales)
			sc2, m2 := scaleMinK4(is+1, scales)
			g := j / 16
			sum += d*(float32(sc1)*a1+float32(sc2)*a2) - dmin*(float32(m1)*(s[g]+s[g+1])+float32(m2)*(s[g+2]+s[g+3]))
		}
	}
	return sum
}

// q6_K: ql[128] low nibbles, qh[64] high 2 bits, scales int8[16], d f16;
// value d·sc·(q−32), one scale per 16 elements.
func dotQ6K(w []byte, x, s16 []float32) float32 {
	var sum float32
	for i := 0; i+256 <= len(x); i += 256 {
		b := (*[210]byte)(w[i/256*210:])
		d := f16(b[208:])
		for n := 0; n < 256; n += 128 {
			ql := (*[64]byte)(b[n/2:])
			qh := (*[32]byte)(b[128+n/4:])
			sc := (*[8]byte)(b[192+n/16:])
			xx := (*[128]float32)(x[i+n:])
			// a[k] accumulates the elements of scale k: half l/16 of
			// each 32-element quarter k/2.
			var a [8]float32
			for h := range 2 {
				var a0, a1, a2, a3 float32
				for l := h * 16; l < h*16+16; l++ {
					a0 += six[(ql[l]&0xf|(qh[l]&3)<<4)&63] * xx[l]
					a1 += six[(ql[l+32]&0xf|(qh[l]>>2&3)<<4)&63] * xx[l+32]
					a2 += six[(ql[l]>>4|(qh[l]>>4&3)<<4)&63] * xx[l+64]
					a3 += six[(ql[l+32]>>4|(qh[l]>>6&3)<<4)&63] * xx[l+96]
				}
				a[h], a[h+2], a[h+4], a[h+6] = a0, a1, a2, a3
			}
			s := s16[(i+n)/16:]
			var t float32
			for k := range 8 {
				t += float32(int8(sc[k])) * (a[k] - 32*s[k])
			}
			sum += d * t
		}
	}
	return sum
}
