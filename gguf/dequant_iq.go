package gguf

import "encoding/binary"

// kvaluesIQ4NL is ggml's non-linear 4-bit codebook shared by iq4_nl and
// iq4_xs (kvalues_iq4nl in ggml-common.h).
var kvaluesIQ4NL = [16]int8{-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113}

// iq4_nl: d f16, qs[16]; value d·table[q], low nibbles first.
func dequantIQ4NL(dst []float32, src []byte) {
	for i := 0; i+32 <= len(dst); i += 32 {
		b := src[i/32*18 : i/32*18+18]
		d := le16f(b)
		y := dst[i : i+32]
		for j := 0; j < 16; j++ {
			q := b[2+j]
			y[j] = d * float32(kvaluesIQ4NL[q&0xf])
			y[j+16] = d * float32(kvaluesIQ4NL[q>>4])
		}
	}
}

// iq4_xs: d f16, scales_h u16, scales_l[4], qs[128]; eight sub-blocks of 32
// with 6-bit scales (offset 32) and the iq4_nl codebook.
func dequantIQ4XS(dst []float32, src []byte) {
	for i := 0; i+qkK <= len(dst); i += qkK {
		b := src[i/qkK*136 : i/qkK*136+136]
		d := le16f(b)
		sh := binary.LittleEndian.Uint16(b[2:])
		sl, qs := b[4:8], b[8:136]
		y := dst[i : i+qkK]
		for ib := 0; ib < 8; ib++ {
			ls := int(sl[ib/2]>>(4*uint(ib%2)))&0xf | int(sh>>(2*uint(ib))&3)<<4
			dl := d * float32(ls-32)
			q := qs[16*ib : 16*ib+16]
			yy := y[32*ib : 32*ib+32]
			for j := 0; j < 16; j++ {
				yy[j] = dl * float32(kvaluesIQ4NL[q[j]&0xf])
				yy[j+16] = dl * float32(kvaluesIQ4NL[q[j]>>4])
			}
		}
	}
}
