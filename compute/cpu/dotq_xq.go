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
// Under wasm in V8 this kernel is ~1.5× the wide f32 one (3.5–4.0 against
// 5.4–6.9 µs per 4096 weights on the shared 2-core machine).

const nib16 = 0x000F000F000F000F

// useXQ makes matMul use dotQ4KXQ for q4_K decode products. Set by the
// js/wasm build only (dotq_select_js.go): natively the table kernel is about as fast (1.7 µs per
// 4096 weights for both) and keeps f32 activations, which also meet
// enginetest's stricter greedy rule against float64 (see
// TestXQFixturesRefcheck).
var useXQ bool

// xqWords is the number of packed words for k activations (two per 8).
func xqWords(k int) int { return k / 4 }

// quantizeXQ quantizes x (len a multiple of 32) to 10 bits per block of
// 32, packed into xp (len k/4), with the per-32 scales in xd (len k/32).
func quantizeXQ(xp []uint64, xd []float32, x []float32) {
	for b := 0; b+32 <= len(x); b += 32 {
		xb := (*[32]float32)(x[b:])
		var amax float32
		for _, v := range xb {
			amax = max(amax, abs32(v))
		}
		d := amax / 511
		xd[b/32] = d
		var inv float32
		if d != 0 {
			inv = 1 / d
		}
		for g := 0; g < 32; g += 8 {
			var u [8]uint64
			for t := range 8 {
				u[t] = uint64(int64(math.Round(float64(xb[g+t]*inv))) + 512)
			}
			xp[(b+g)/4] = u[0]<<48 | u[2]<<32 | u[4]<<16 | u[6]
			xp[(b+g)/4+1] = u[1]<<48 | u[3]<<32 | u[5]<<16 | u[7]
		}
	}
}

func abs32(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}

// dotQ4KXQ is the q4_K row w times the activations packed by quantizeXQ
// (xp, xd), with s16 the exact per-16 sums of the same activations.
func dotQ4KXQ(w []byte, xp []uint64, xd, s16 []float32) float32 {
	var sum float32
	for i := 0; i+256 <= len(xd)*32; i += 256 {
		b := (*[144]byte)(w[i/256*144:])
		d, dmin := f16(b[0:]), f16(b[2:])
		scales := (*[12]byte)(b[4:16])
		s := s16[i/16:]
		for j, is := 0, 0; j < 256; j, is = j+64, is+2 {
			q := (*[32]byte)(b[16+j/2:])
			xl := (*[8]uint64)(xp[(i+j)/4:])    // elements i+j … +31: low nibbles
			xh := (*[8]uint64)(xp[(i+j+32)/4:]) // elements i+j+32 … +63: high nibbles
			var lo, hi, ql, qh uint64
			for l := 0; l < 32; l += 8 {
				v := binary.LittleEndian.Uint64(q[l:])
				le, lodd := v&nib16, v>>8&nib16
				he, hodd := v>>4&nib16, v>>12&nib16
				g := l / 4
				lo += le*xl[g]>>48 + lodd*xl[g+1]>>48
				hi += he*xh[g]>>48 + hodd*xh[g+1]>>48
				ql += le + lodd
				qh += he + hodd
			}
			// Lane sums of the nibbles (each lane ≤ 8·15).
			ql = ql * 0x0001000100010001 >> 48
			qh = qh * 0x0001000100010001 >> 48
			a1 := xd[(i+j)/32] * float32(int64(lo)-512*int64(ql))
			a2 := xd[(i+j+32)/32] * float32(int64(hi)-512*int64(qh))
			sc1, m1 := scaleMinK4(is, scales)
			sc2, m2 := scaleMinK4(is+1, scales)
			g := j / 16
			sum += d*(float32(sc1)*a1+float32(sc2)*a2) - dmin*(float32(m1)*(s[g]+s[g+1])+float32(m2)*(s[g+2]+s[g+3]))
		}
	}
	return sum
}
