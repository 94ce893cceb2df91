package gguf

import "encoding/binary"

// The 32-element "legacy" block formats, as ggml's dequantize_row_q4_0 …
// dequantize_row_q8_0. Products are written float32(a*b) so the compiler
// cannot fuse them into an FMA: results must round exactly like ggml's.

func le16f(b []byte) float32 { return F16ToF32(binary.LittleEndian.Uint16(b)) }

// q4_0: d f16, qs[16]; element j is the low nibble of qs[j], j+16 the high
// nibble; value (q-8)·d.
func dequantQ4_0(dst []float32, src []byte) {
	for i := 0; i+32 <= len(dst); i += 32 {
		b := src[i/32*18 : i/32*18+18]
		d := le16f(b)
		y := dst[i : i+32]
		for j := 0; j < 16; j++ {
			q := b[2+j]
			y[j] = float32(int(q&0xf)-8) * d
			y[j+16] = float32(int(q>>4)-8) * d
		}
	}
}

// q4_1: d, m f16, qs[16]; value q·d + m.
func dequantQ4_1(dst []float32, src []byte) {
	for i := 0; i+32 <= len(dst); i += 32 {
		b := src[i/32*20 : i/32*20+20]
		d, m := le16f(b), le16f(b[2:])
		y := dst[i : i+32]
		for j := 0; j < 16; j++ {
			q := b[4+j]
			y[j] = float32(float32(q&0xf)*d) + m
			y[j+16] = float32(float32(q>>4)*d) + m
		}
	}
}

// q5_0: d f16, qh u32 (fifth bits), qs[16]; value (q-16)·d.
func dequantQ5_0(dst []float32, src []byte) {
	for i := 0; i+32 <= len(dst); i += 32 {
		b := src[i/32*22 : i/32*22+22]
		d := le16f(b)
		qh := binary.LittleEndian.Uint32(b[2:])
		y := dst[i : i+32]
		for j := 0; j < 16; j++ {
			q := b[6+j]
			h0 := byte(qh>>uint(j)<<4) & 0x10
			h1 := byte(qh>>uint(j+12)) & 0x10
			y[j] = float32(int(q&0xf|h0)-16) * d
			y[j+16] = float32(int(q>>4|h1)-16) * d
		}
	}
}

// q5_1: d, m f16, qh u32, qs[16]; value q·d + m.
func dequantQ5_1(dst []float32, src []byte) {
	for i := 0; i+32 <= len(dst); i += 32 {
		b := src[i/32*24 : i/32*24+24]
		d, m := le16f(b), le16f(b[2:])
		qh := binary.LittleEndian.Uint32(b[4:])
		y := dst[i : i+32]
		for j := 0; j < 16; j++ {
			q := b[8+j]
			h0 := byte(qh>>uint(j)<<4) & 0x10
			h1 := byte(qh>>uint(j+12)) & 0x10
			y[j] = float32(float32(q&0xf|h0)*d) + m
			y[j+16] = float32(float32(q>>4|h1)*d) + m
		}
	}
}

// q8_0: d f16, qs int8[32]; value q·d.
func dequantQ8_0(dst []float32, src []byte) {
	for i := 0; i+32 <= len(dst); i += 32 {
		b := src[i/32*34 : i/32*34+34]
		d := le16f(b)
		y := dst[i : i+32]
		for j := 0; j < 32; j++ {
			y[j] = float32(int8(b[2+j])) * d
		}
	}
}
