package cpu

import "encoding/binary"

// The "wide" kernels read eight quants at a time as one uint64 and unpack
// them with shifts. Natively they lose to the table kernels (more ALU
// work), but under Go's wasm code generation each byte load and table
// load costs several instructions, and these run ~1.4× faster there; the
// wasm build selects them (dotq_select_wasm.go). Both sets are tested on
// every platform. The wide q6_K unpacks eight 6-bit quants per word with
// constant masks and shifts (SWAR): 4.2 µs per 4096 weights under wasm in
// V8 against 6.6 µs for the table kernel (a first version with variable
// shifts was slower than the table). Go's wasm calls are costly: nothing
// here calls a helper in its inner loop.

var wideDots = map[string]rowDot{"q4_K": dotQ4KWide, "q4_0": dotQ4_0Wide, "q8_0": dotQ8_0Wide, "q6_K": dotQ6KWide}

func dotQ4KWide(w []byte, x, s16 []float32) float32 {
	var sum float32
	for i := 0; i+256 <= len(x); i += 256 {
		b := (*[144]byte)(w[i/256*144:])
		d, dmin := f16(b[0:]), f16(b[2:])
		scales := (*[12]byte)(b[4:16])
		s := s16[i/16:]
		for j, is := 0, 0; j < 256; j, is = j+64, is+2 {
			q := b[16+j/2 : 16+j/2+32]
			x1 := (*[32]float32)(x[i+j:])
			x2 := (*[32]float32)(x[i+j+32:])
			var a1, a2, b1, b2 float32
			for l := 0; l < 32; l += 8 {
				v := binary.LittleEndian.Uint64(q[l:])
				xa := (*[8]float32)(x1[l:])
				xb := (*[8]float32)(x2[l:])
				a1 += float32(v&0xf)*xa[0] + float32(v>>8&0xf)*xa[1] + float32(v>>16&0xf)*xa[2] + float32(v>>24&0xf)*xa[3]
				b1 += float32(v>>32&0xf)*xa[4] + float32(v>>40&0xf)*xa[5] + float32(v>>48&0xf)*xa[6] + float32(v>>56&0xf)*xa[7]
				a2 += float32(v>>4&0xf)*xb[0] + float32(v>>12&0xf)*xb[1] + float32(v>>20&0xf)*xb[2] + float32(v>>28&0xf)*xb[3]
				b2 += float32(v>>36&0xf)*xb[4] + float32(v>>44&0xf)*xb[5] + float32(v>>52&0xf)*xb[6] + float32(v>>60&0xf)*xb[7]
			}
			sc1, m1 := scaleMinK4(is, scales)
			sc2, m2 := scaleMinK4(is+1, scales)
			g := j / 16
			sum += d*(float32(sc1)*(a1+b1)+float32(sc2)*(a2+b2)) - dmin*(float32(m1)*(s[g]+s[g+1])+float32(m2)*(s[g+2]+s[g+3]))
		}
	}
	return sum
}

func dotQ4_0Wide(w []byte, x, s16 []float32) float32 {
	var sum float32
	for i := 0; i+32 <= len(x); i += 32 {
		b := (*[18]byte)(w[i/32*18:])
		xb := (*[32]float32)(x[i:])
		var a0, a1 float32
		for h := 0; h < 16; h += 8 {
			v := binary.LittleEndian.Uint64(b[2+h:])
			xl := (*[8]float32)(xb[h:])
			xh := (*[8]float32)(xb[16+h:])
			a0 += float32(v&0xf)*xl[0] + float32(v>>8&0xf)*xl[1] + float32(v>>16&0xf)*xl[2] + float32(v>>24&0xf)*xl[3] +
				float32(v>>32&0xf)*xl[4] + float32(v>>40&0xf)*xl[5] + float32(v>>48&0xf)*xl[6] + float32(v>>56&0xf)*xl[7]
			a1 += float32(v>>4&0xf)*xh[0] + float32(v>>12&0xf)*xh[1] + float32(v>>20&0xf)*xh[2] + float32(v>>28&0xf)*xh[3] +
				float32(v>>36&0xf)*xh[4] + float32(v>>44&0xf)*xh[5] + float32(v>>52&0xf)*xh[6] + float32(v>>60&0xf)*xh[7]
		}
		sum += f16(b[:]) * (a0 + a1 - 8*(s16[i/16]+s16[i/16+1]))
	}
	return sum
}

func dotQ8_0Wide(w []byte, x, _ []float32) float32 {
	var sum float32
	for i := 0; i+32 <= len(x); i += 32 {
		b := (*[34]byte)(w[i/32*34:])
		var a0, a1 float32
		for h := 0; h < 32; h += 8 {
			v := binary.LittleEndian.Uint64(b[2+h:])
			xs := (*[8]float32)(x[i+h:])
			a0 += float32(int8(v))*xs[0] + float32(int8(v>>8))*xs[1] + float32(int8(v>>16))*xs[2] + float32(int8(v>>24))*xs[3]
			a1 += float32(int8(v>>32))*xs[4] + float32(int8(v>>40))*xs[5] + float32(int8(v>>48))*xs[6] + float32(int8(v>>56))*xs[7]
		}
		sum += f16(b[:]) * (a0 + a1)
	}
	return sum
}

// q6_K planes, unpacked eight bytes at a time (SWAR): each byte of the
// masked words is one 6-bit quant, so every shift below is a constant.
const (
	lo4 = 0x0f0f0f0f0f0f0f0f
	lo2 = 0x0303030303030303
)

func dotQ6KWide(w []byte, x, s16 []float32) float32 {
	var sum float32
	for i := 0; i+256 <= len(x); i += 256 {
		b := (*[210]byte)(w[i/256*210:])
		d := f16(b[208:])
		for n := 0; n < 256; n += 128 {
			ql := (*[64]byte)(b[n/2:])
			qh := (*[32]byte)(b[128+n/4:])
			sc := (*[8]byte)(b[192+n/16:])
			xx := (*[128]float32)(x[i+n:])
			// a[k] accumulates the elements of scale k (16 each).
			var a [8]float32
			for h := range 2 {
				var a0, a1, a2, a3 float32
				for l := h * 16; l < h*16+16; l += 8 {
					qa := binary.LittleEndian.Uint64(ql[l:])
					qb := binary.LittleEndian.Uint64(ql[l+32:])
					hb := binary.LittleEndian.Uint64(qh[l:])
					e0, e1 := qa&lo4|(hb&lo2)<<4, qb&lo4|(hb>>2&lo2)<<4
					e2, e3 := qa>>4&lo4|(hb>>4&lo2)<<4, qb>>4&lo4|(hb>>6&lo2)<<4
					x0, x1 := (*[8]float32)(xx[l:]), (*[8]float32)(xx[l+32:])
					x2, x3 := (*[8]float32)(xx[l+64:]), (*[8]float32)(xx[l+96:])
					// Written out: a helper is over Go's inlining budget,
					// and a call per eight weights costs ~20% under wasm.
					a0 += float32(e0&0xff)*x0[0] + float32(e0>>8&0xff)*x0[1] + float32(e0>>16&0xff)*x0[2] + float32(e0>>24&0xff)*x0[3] +
						(float32(e0>>32&0xff)*x0[4] + float32(e0>>40&0xff)*x0[5] + float32(e0>>48&0xff)*x0[6] + float32(e0>>56)*x0[7])
					a1 += float32(e1&0xff)*x1[0] + float32(e1>>8&0xff)*x1[1] + float32(e1>>16&0xff)*x1[2] + float32(e1>>24&0xff)*x1[3] +
						(float32(e1>>32&0xff)*x1[4] + float32(e1>>40&0xff)*x1[5] + float32(e1>>48&0xff)*x1[6] + float32(e1>>56)*x1[7])
					a2 += float32(e2&0xff)*x2[0] + float32(e2>>8&0xff)*x2[1] + float32(e2>>16&0xff)*x2[2] + float32(e2>>24&0xff)*x2[3] +
						(float32(e2>>32&0xff)*x2[4] + float32(e2>>40&0xff)*x2[5] + float32(e2>>48&0xff)*x2[6] + float32(e2>>56)*x2[7])
					a3 += float32(e3&0xff)*x3[0] + float32(e3>>8&0xff)*x3[1] + float32(e3>>16&0xff)*x3[2] + float32(e3>>24&0xff)*x3[3] +
						(float32(e3>>32&0xff)*x3[4] + float32(e3>>40&0xff)*x3[5] + float32(e3>>48&0xff)*x3[6] + float32(e3>>56)*x3[7])
				}
				a[h], a[h+2], a[h+4], a[h+6] = a0, a1, a2, a3
			}
			s := (*[8]float32)(s16[(i+n)/16:])
			var t float32
			for k := range 8 {
				t += float32(int8(sc[k])) * (a[k] - 32*s[k])
			}
			sum += d * t
		}
	}
	return sum
}
