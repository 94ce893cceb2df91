package cpu

import "encoding/binary"

// Integer q6_K dots against 16-bit activations, two multiply-adds per
// 64-bit multiply (SWAR with 32-bit lanes). The float q6_K kernel under
// wasm spends five instructions per weight (shift, mask, convert, multiply,
// add) and was a third of a 100M model's decode token in the browser
// (1.1–1.5 ns per weight against 0.6 for the integer q4_K kernel), mostly
// the 32000-row output projection. Here:
//
//   - the activations of a row are quantized once per product, per block
//     of 256, to signed 16 bits: u = round(x/dx), dx = max|x|/32767, and
//     stored for every eight consecutive elements as four words
//     X_s = u_s·2³² + u_{s+4} (s = 0…3, as a signed 64-bit value), with
//     the sums of u over each 16 elements;
//   - eight 6-bit quants are assembled in the bytes of one word from the
//     ql and qh planes (as the wide kernel does); masking byte s and s+4
//     into 32-bit lanes gives W_s = q_s + q_{s+4}·2³²;
//   - W_s·X_s mod 2⁶⁴ = (q_s·u_s + q_{s+4}·u_{s+4})·2³² + q_s·u_{s+4}: the
//     upper half is a 2-term dot product and the lower term is below
//     63·2¹⁵ in magnitude, so the raw products of a 16-element group (8 of
//     them) are summed first and the dot is (sum + 2³¹) >> 32, arithmetic,
//     exactly.
//
// Σ q·x − 32·Σ x over a group is dx·(Σ q·u − 32·Σ u), all in integers until
// the block's d·dx. With 16 bits the activations' rounding (≤ dx/2 per
// element, dx = max|x|/32767 per 256) is ~30× below the 10-bit q4_K
// kernel's and ~250× below llama.cpp's 8-bit q8_K for the same product.
//
// Go's wasm code generation makes no use of 32-bit operations being
// cheaper: all of this is i64, which V8 runs natively.

// lane32 keeps bytes 0 and 4 of a word: two quants in 32-bit lanes.
const lane32 = 0x000000ff000000ff

// x16Words is the number of packed words for k activations (four per 8).
func x16Words(k int) int { return k / 2 }

// quantizeX16 quantizes x (len a multiple of 256) to signed 16 bits per
// block of 256 into xp (len k/2), with the per-256 scales in xs (len
// k/256) and the per-16 sums of the quantized values in xu (len k/16).
func quantizeX16(xp []uint64, xs []float32, xu []int32, x []float32) {
	for b := 0; b+256 <= len(x); b += 256 {
		xb := (*[256]float32)(x[b:])
		d := absMax(xb[:]) / 32767
		xs[b/256] = d
		var inv float64
		if d != 0 {
			inv = 1 / float64(d)
		}
		for e := 0; e < 256; e += 8 {
			v := (*[8]float32)(xb[e:])
			// round(x·inv) as trunc(x·inv + 32768.5) − 32768: |x·inv| ≤
			// 32767 up to float64 rounding, so this is positive and the
			// result stays within ±32767.
			u0 := int64(float64(v[0])*inv+32768.5) - 32768
			u1 := int64(float64(v[1])*inv+32768.5) - 32768
			u2 := int64(float64(v[2])*inv+32768.5) - 32768
			u3 := int64(float64(v[3])*inv+32768.5) - 32768
			u4 := int64(float64(v[4])*inv+32768.5) - 32768
			u5 := int64(float64(v[5])*inv+32768.5) - 32768
			u6 := int64(float64(v[6])*inv+32768.5) - 32768
			u7 := int64(float64(v[7])*inv+32768.5) - 32768
			w := (*[4]uint64)(xp[(b+e)/2:])
			w[0] = uint64(u0<<32 + u4)
			w[1] = uint64(u1<<32 + u5)
			w[2] = uint64(u2<<32 + u6)
			w[3] = uint64(u3<<32 + u7)
			if e%16 == 0 {
				xu[(b+e)/16] = 0
			}
			xu[(b+e)/16] += int32(u0 + u1 + u2 + u3 + u4 + u5 + u6 + u7)
		}
	}
}

// dotQ6KX16 is the q6_K row w times the activations packed by quantizeX16
// (xp, xs, xu). The loop over the two 8-byte words of a 16-element group
// is written out (loop back-edges are costly in Go's wasm code: see
// dotQ4KXQ); splitting the group's four quarters into separate passes,
// for fewer live values, measured no faster.
func dotQ6KX16(w []byte, xp []uint64, xs []float32, xu []int32) float32 {
	var sum float32
	for bi := 0; bi < len(xs); bi++ {
		b := (*[210]byte)(w[bi*210:])
		xb := (*[128]uint64)(xp[bi*128:])
		ub := (*[16]int32)(xu[bi*16:])
		var t int64
		for n := 0; n < 2; n++ {
			ql := (*[64]byte)(b[64*n:])
			qh := (*[32]byte)(b[128+32*n:])
			sc := (*[8]byte)(b[192+8*n:])
			xx := (*[64]uint64)(xb[64*n:])
			u := (*[8]int32)(ub[8*n:])
			for h := 0; h < 2; h++ {
				l := 16 * h
				qa := binary.LittleEndian.Uint64(ql[l:])
				qb := binary.LittleEndian.Uint64(ql[l+32:])
				hb := binary.LittleEndian.Uint64(qh[l:])
				x0, x1 := (*[8]uint64)(xx[8*h:]), (*[8]uint64)(xx[8*h+16:])
				x2, x3 := (*[8]uint64)(xx[8*h+32:]), (*[8]uint64)(xx[8*h+48:])
				e0, e1 := qa&lo4|(hb&lo2)<<4, qb&lo4|(hb>>2&lo2)<<4
				e2, e3 := qa>>4&lo4|(hb>>4&lo2)<<4, qb>>4&lo4|(hb>>6&lo2)<<4
				a0 := e0&lane32*x0[0] + e0>>8&lane32*x0[1] + e0>>16&lane32*x0[2] + e0>>24&lane32*x0[3]
				a1 := e1&lane32*x1[0] + e1>>8&lane32*x1[1] + e1>>16&lane32*x1[2] + e1>>24&lane32*x1[3]
				a2 := e2&lane32*x2[0] + e2>>8&lane32*x2[1] + e2>>16&lane32*x2[2] + e2>>24&lane32*x2[3]
				a3 := e3&lane32*x3[0] + e3>>8&lane32*x3[1] + e3>>16&lane32*x3[2] + e3>>24&lane32*x3[3]
				qa = binary.LittleEndian.Uint64(ql[l+8:])
				qb = binary.LittleEndian.Uint64(ql[l+40:])
				hb = binary.LittleEndian.Uint64(qh[l+8:])
				e0, e1 = qa&lo4|(hb&lo2)<<4, qb&lo4|(hb>>2&lo2)<<4
				e2, e3 = qa>>4&lo4|(hb>>4&lo2)<<4, qb>>4&lo4|(hb>>6&lo2)<<4
				a0 += e0&lane32*x0[4] + e0>>8&lane32*x0[5] + e0>>16&lane32*x0[6] + e0>>24&lane32*x0[7]
				a1 += e1&lane32*x1[4] + e1>>8&lane32*x1[5] + e1>>16&lane32*x1[6] + e1>>24&lane32*x1[7]
				a2 += e2&lane32*x2[4] + e2>>8&lane32*x2[5] + e2>>16&lane32*x2[6] + e2>>24&lane32*x2[7]
				a3 += e3&lane32*x3[4] + e3>>8&lane32*x3[5] + e3>>16&lane32*x3[6] + e3>>24&lane32*x3[7]
				t += int64(int8(sc[h]))*(int64(a0+1<<31)>>32-32*int64(u[h])) +
					int64(int8(sc[h+2]))*(int64(a1+1<<31)>>32-32*int64(u[h+2])) +
					int64(int8(sc[h+4]))*(int64(a2+1<<31)>>32-32*int64(u[h+4])) +
					int64(int8(sc[h+6]))*(int64(a3+1<<31)>>32-32*int64(u[h+6]))
			}
		}
		sum += f16(b[208:]) * xs[bi] * float32(t)
	}
	return sum
}
