package gguf

import "encoding/binary"

// The 256-element "k-quant" super-block formats, as ggml's
// dequantize_row_q2_K … dequantize_row_q6_K (same operation order, so the
// float32 results are bit-identical).

const qkK = 256

// scaleMinK4 unpacks the j-th 6-bit scale and min of q4_K/q5_K's 12-byte
// scales field (ggml's get_scale_min_k4).
func scaleMinK4(j int, q []byte) (sc, m uint8) {
	if j < 4 {
		return q[j] & 63, q[j+4] & 63
	}
	return q[j+4]&0xf | (q[j-4]>>6)<<4, q[j+4]>>4 | (q[j]>>6)<<4
}

// q2_K: scales[16] (low nibble scale, high nibble min), qs[64], d, dmin.
func dequantQ2K(dst []float32, src []byte) {
	for i := 0; i+qkK <= len(dst); i += qkK {
		b := src[i/qkK*84 : i/qkK*84+84]
		scales, qs := b[0:16], b[16:80]
		d, dmin := le16f(b[80:]), le16f(b[82:])
		y := dst[i : i+qkK]
		is, o := 0, 0
		for n := 0; n < qkK; n += 128 {
			q := qs[n/4 : n/4+32]
			for shift := uint(0); shift < 8; shift += 2 {
				for half := 0; half < 2; half++ {
					sc := scales[is]
					is++
					dl := d * float32(sc&0xf)
					ml := dmin * float32(sc>>4)
					for l := 0; l < 16; l++ {
						y[o] = float32(dl*float32((q[l+16*half]>>shift)&3)) - ml
						o++
					}
				}
			}
		}
	}
}

// q3_K: hmask[32], qs[64], scales[12] (6-bit, offset 32), d.
func dequantQ3K(dst []float32, src []byte) {
	var sc [16]int8
	for i := 0; i+qkK <= len(dst); i += qkK {
		b := src[i/qkK*110 : i/qkK*110+110]
		hm, qs, raw := b[0:32], b[32:96], b[96:108]
		dAll := le16f(b[108:])
		unpackQ3KScales(&sc, raw)
		y := dst[i : i+qkK]
		is, o := 0, 0
		bit := uint(0) // hmask bit of the current 16-element group
		for n := 0; n < qkK; n += 128 {
			q := qs[n/4 : n/4+32]
			for shift := uint(0); shift < 8; shift += 2 {
				for half := 0; half < 2; half++ {
					dl := dAll * float32(int(sc[is])-32)
					is++
					for l := 0; l < 16; l++ {
						// minus 4 when the high bit is clear, without a branch
						v := int((q[l+16*half]>>shift)&3) - int((hm[l+16*half]>>bit&1)^1)<<2
						y[o] = dl * float32(v)
						o++
					}
				}
				bit++
			}
		}
	}
}

// unpackQ3KScales expands q3_K's 12 packed bytes into 16 6-bit scales
// (still offset by 32), exactly as ggml's kmask shuffle does.
func unpackQ3KScales(sc *[16]int8, raw []byte) {
	const kmask1, kmask2 = 0x03030303, 0x0f0f0f0f
	a0 := binary.LittleEndian.Uint32(raw[0:])
	a1 := binary.LittleEndian.Uint32(raw[4:])
	tmp := binary.LittleEndian.Uint32(raw[8:])
	aux := [4]uint32{
		a0&kmask2 | ((tmp>>0)&kmask1)<<4,
		a1&kmask2 | ((tmp>>2)&kmask1)<<4,
		(a0>>4)&kmask2 | ((tmp>>4)&kmask1)<<4,
		(a1>>4)&kmask2 | ((tmp>>6)&kmask1)<<4,
	}
	for k, a := range aux {
		for by := 0; by < 4; by++ {
			sc[4*k+by] = int8(a >> (8 * by))
		}
	}
}

// q4_K: d, dmin, scales[12] (eight 6-bit scale/min pairs), qs[128].
func dequantQ4K(dst []float32, src []byte) {
	for i := 0; i+qkK <= len(dst); i += qkK {
		b := src[i/qkK*144 : i/qkK*144+144]
		d, dmin := le16f(b), le16f(b[2:])
		scales, qs := b[4:16], b[16:144]
		y := dst[i : i+qkK]
		for j, is := 0, 0; j < qkK; j, is = j+64, is+2 {
			sc, m := scaleMinK4(is, scales)
			d1, m1 := d*float32(sc), dmin*float32(m)
			sc, m = scaleMinK4(is+1, scales)
			d2, m2 := d*float32(sc), dmin*float32(m)
			q := qs[j/2 : j/2+32]
			for l := 0; l < 32; l++ {
				y[j+l] = float32(d1*float32(q[l]&0xf)) - m1
				y[j+32+l] = float32(d2*float32(q[l]>>4)) - m2
			}
		}
	}
}

// q5_K: d, dmin, scales[12], qh[32], qs[128].
func dequantQ5K(dst []float32, src []byte) {
	for i := 0; i+qkK <= len(dst); i += qkK {
		b := src[i/qkK*176 : i/qkK*176+176]
		d, dmin := le16f(b), le16f(b[2:])
		scales, qh, qs := b[4:16], b[16:48], b[48:176]
		y := dst[i : i+qkK]
		for j, is := 0, 0; j < qkK; j, is = j+64, is+2 {
			sc, m := scaleMinK4(is, scales)
			d1, m1 := d*float32(sc), dmin*float32(m)
			sc, m = scaleMinK4(is+1, scales)
			d2, m2 := d*float32(sc), dmin*float32(m)
			ql := qs[j/2 : j/2+32]
			// High bits: bit is of qh[l] for the low nibbles, is+1 for the
			// high ones. Branch-free: the bits are random in real weights.
			s1, s2 := uint(is), uint(is+1)
			for l := 0; l < 32; l++ {
				q1 := ql[l]&0xf | (qh[l]>>s1&1)<<4
				q2 := ql[l]>>4 | (qh[l]>>s2&1)<<4
				y[j+l] = float32(d1*float32(q1)) - m1
				y[j+32+l] = float32(d2*float32(q2)) - m2
			}
		}
	}
}

// q6_K: ql[128] (low nibbles), qh[64] (high 2 bits), scales int8[16], d.
func dequantQ6K(dst []float32, src []byte) {
	for i := 0; i+qkK <= len(dst); i += qkK {
		b := src[i/qkK*210 : i/qkK*210+210]
		d := le16f(b[208:])
		y := dst[i : i+qkK]
		for n := 0; n < qkK; n += 128 {
			ql := b[n/2 : n/2+64]
			qh := b[128+n/4 : 128+n/4+32]
			sc := b[192+n/16 : 192+n/16+8]
			yy := y[n : n+128]
			for l := 0; l < 32; l++ {
				is := l / 16
				q1 := int(ql[l]&0xf|(qh[l]>>0&3)<<4) - 32
				q2 := int(ql[l+32]&0xf|(qh[l]>>2&3)<<4) - 32
				q3 := int(ql[l]>>4|(qh[l]>>4&3)<<4) - 32
				q4 := int(ql[l+32]>>4|(qh[l]>>6&3)<<4) - 32
				yy[l] = float32(d*float32(int8(sc[is]))) * float32(q1)
				yy[l+32] = float32(d*float32(int8(sc[is+2]))) * float32(q2)
				yy[l+64] = float32(d*float32(int8(sc[is+4]))) * float32(q3)
				yy[l+96] = float32(d*float32(int8(sc[is+6]))) * float32(q4)
			}
		}
	}
}
