package cpu

import (
	"encoding/binary"
	"math"
)

// Integer q4_K dots against quantized activations, four multiply-adds per
// 64-bit multiply (SWAR). Go has no SIMD under wasm, and there a float
// kernel spends five instructions per weight (shift, mask, convert,
// multiply, add). Here:
//
//   - the activations of a row are quantized once per product, per block of
//     32, to 10 bits: u = round(x/dx)+512 in [1, 1023], dx = max|x|/511,
//     packed four to a word in 16-bit lanes, highest lane first: X =
//     u₀·2⁴⁸ + u₂·2³² + u₄·2¹⁶ + u₆ for the even elements of each group of
//     eight, the same for the odd;
//   - one load of eight q4_K bytes gives, by shift and mask, four words of
//     four nibbles in 16-bit lanes (even/odd bytes × low/high nibbles), W =
//     w₀ + w₁·2¹⁶ + w₂·2³² + w₃·2⁴⁸;
//   - in W·X the coefficient of 2⁴⁸ is Σ wₜ·uₜ (≤ 4·15·1023 < 2¹⁶, and no
//     lower coefficient reaches 2¹⁶, so nothing carries into it): bits
//     48–63 of the 64-bit product are a 4-term dot product.
//
// Σ q·x over a block of 32 is dx·(Σ q·u − 512·Σ q); the dmin term uses the
// exact f32 sums of x (s16), as the float kernels do. 10 bits, not
// llama.cpp's 8: with 8-bit activations (per 32) the random-weight fixtures
// deviated from the float64 logits by up to 1.38, beyond refcheck's
// tolerance (0.98); with 10 bits the maximum is 0.34 (llama.cpp's own: 0.65).
// Under wasm in V8 this kernel takes 1.3 µs per 4096 weights (CPU time)
// against 3.7 for the wide f32 one.

const nib16 = 0x000F000F000F000F

// useXQ makes matMul use the quantized-activation kernels: q4_K products
// (dotQ4KXQ2 for decode, dotQ4KXQ4 for prefill) and q6_K decode products
// (dotQ6KX16). Set by the js/wasm build only (dotq_select_js.go): natively
// the table kernels keep f32 activations, which also meet enginetest's
// stricter greedy rule against float64 (see TestXQFixturesRefcheck).
var useXQ bool

// xqWords is the number of packed words for k activations (two per 8).
func xqWords(k int) int { return k / 4 }

// quantizeXQ quantizes x (len a multiple of 32) to 10 bits per block of
// 32, packed into xp (len k/4), with the per-32 scales in xd (len k/32).
func quantizeXQ(xp []uint64, xd []float32, x []float32) {
	for b := 0; b+32 <= len(x); b += 32 {
		xb := (*[32]float32)(x[b:])
		d := absMax(xb[:]) / 511
		xd[b/32] = d
		var inv float32
		if d != 0 {
			inv = 1 / d
		}
		// u = round(x·inv)+512 as trunc(x·inv + 512.5), positive: a float
		// conversion where math.Round is a call under wasm. Written out
		// per word (see dotQ4KXQ on loops under wasm).
		for g := 0; g < 32; g += 8 {
			v := (*[8]float32)(xb[g:])
			xp[(b+g)/4] = uint64(v[0]*inv+512.5)<<48 | uint64(v[2]*inv+512.5)<<32 | uint64(v[4]*inv+512.5)<<16 | uint64(v[6]*inv+512.5)
			xp[(b+g)/4+1] = uint64(v[1]*inv+512.5)<<48 | uint64(v[3]*inv+512.5)<<32 | uint64(v[5]*inv+512.5)<<16 | uint64(v[7]*inv+512.5)
		}
	}
}

// absMax is max |x| over x (len a multiple of 8), eight elements per
// iteration, compared as bit patterns without the sign (monotonic for
// finite floats).
func absMax(x []float32) float32 {
	var m uint32
	for e := 0; e+8 <= len(x); e += 8 {
		v := (*[8]float32)(x[e:])
		m0 := max(math.Float32bits(v[0])&0x7fffffff, math.Float32bits(v[1])&0x7fffffff)
		m1 := max(math.Float32bits(v[2])&0x7fffffff, math.Float32bits(v[3])&0x7fffffff)
		m2 := max(math.Float32bits(v[4])&0x7fffffff, math.Float32bits(v[5])&0x7fffffff)
		m3 := max(math.Float32bits(v[6])&0x7fffffff, math.Float32bits(v[7])&0x7fffffff)
		m = max(m, m0, m1, m2, m3)
	}
	return math.Float32frombits(m)
}

// dotQ4KXQ is the q4_K row w times the activations packed by quantizeXQ
// (xp, xd), with s16 the exact per-16 sums of the same activations.
//
// Written out over each 64 weights: Go's wasm backend turns every loop
// back-edge into a jump through the function's resume dispatch (a
// br_table), and the rolled inner loop of 8 bytes ran at 2.3 µs per 4096
// weights against 1.3 for this one (V8, CPU time). The block's eight
// scales and mins are unpacked at once, SWAR, into the bytes of two words.
func dotQ4KXQ(w []byte, xp []uint64, xd, s16 []float32) float32 {
	var sum float32
	nb := len(xd) / 8
	for bi := 0; bi < nb; bi++ {
		b := (*[144]byte)(w[bi*144:])
		xb := (*[64]uint64)(xp[bi*64:])
		xdb := (*[8]float32)(xd[bi*8:])
		s := (*[16]float32)(s16[bi*16:])
		d, dmin := f16(b[0:]), f16(b[2:])
		// The eight 6-bit scales and mins, one per byte.
		sa := binary.LittleEndian.Uint32(b[4:])
		sb := binary.LittleEndian.Uint32(b[8:])
		sc := binary.LittleEndian.Uint32(b[12:])
		scs := uint64(sa&0x3f3f3f3f) | uint64(sc&0x0f0f0f0f|(sa>>6&0x03030303)<<4)<<32
		mins := uint64(sb&0x3f3f3f3f) | uint64(sc>>4&0x0f0f0f0f|(sb>>6&0x03030303)<<4)<<32
		var acc, macc float32
		for j := 0; j < 4; j++ {
			q := (*[32]byte)(b[16+32*j:])
			xl := (*[8]uint64)(xb[16*j:])
			xh := (*[8]uint64)(xb[16*j+8:])
			v0 := binary.LittleEndian.Uint64(q[0:])
			v1 := binary.LittleEndian.Uint64(q[8:])
			v2 := binary.LittleEndian.Uint64(q[16:])
			v3 := binary.LittleEndian.Uint64(q[24:])
			e0, o0 := v0&nib16, v0>>8&nib16
			e1, o1 := v1&nib16, v1>>8&nib16
			e2, o2 := v2&nib16, v2>>8&nib16
			e3, o3 := v3&nib16, v3>>8&nib16
			lo := e0*xl[0]>>48 + o0*xl[1]>>48 + e1*xl[2]>>48 + o1*xl[3]>>48 +
				e2*xl[4]>>48 + o2*xl[5]>>48 + e3*xl[6]>>48 + o3*xl[7]>>48
			ql := (e0 + o0 + e1 + o1 + e2 + o2 + e3 + o3) * 0x0001000100010001 >> 48
			e0, o0 = v0>>4&nib16, v0>>12&nib16
			e1, o1 = v1>>4&nib16, v1>>12&nib16
			e2, o2 = v2>>4&nib16, v2>>12&nib16
			e3, o3 = v3>>4&nib16, v3>>12&nib16
			hi := e0*xh[0]>>48 + o0*xh[1]>>48 + e1*xh[2]>>48 + o1*xh[3]>>48 +
				e2*xh[4]>>48 + o2*xh[5]>>48 + e3*xh[6]>>48 + o3*xh[7]>>48
			qh := (e0 + o0 + e1 + o1 + e2 + o2 + e3 + o3) * 0x0001000100010001 >> 48
			sh := uint(16 * j)
			acc += float32(scs>>sh&0xff)*xdb[2*j]*float32(int64(lo)-512*int64(ql)) +
				float32(scs>>(sh+8)&0xff)*xdb[2*j+1]*float32(int64(hi)-512*int64(qh))
			macc += float32(mins>>sh&0xff)*(s[4*j]+s[4*j+1]) + float32(mins>>(sh+8)&0xff)*(s[4*j+2]+s[4*j+3])
		}
		sum += d*acc - dmin*macc
	}
	return sum
}
