package gguf

import (
	"encoding/binary"
	"math"
)

// The ternary formats: every element is one of {-d, 0, +d}. TQ1_0 and TQ2_0
// are ggml's (dequantize_row_tq1_0 / _tq2_0), one f16 d per 256 elements;
// I2_S is Microsoft BitNet's, one f32 d per tensor.

// tq1Pow3 multiplies a TQ1_0 byte so that its n-th trit moves to the top:
// a byte holds ceil(v·256/243) for a 5-trit base-3 number v, so the trit
// is then the high part of (byte·3) / 256.
var tq1Pow3 = [5]uint8{1, 3, 9, 27, 81}

// tq1Trit returns trit n (0 the most significant) of a TQ1_0 byte as -1, 0
// or +1.
func tq1Trit(b byte, n int) int {
	q := b * tq1Pow3[n] // wraps like ggml's uint8_t product
	return int(uint16(q)*3>>8) - 1
}

// tq1_0: qs[48], qh[4], d f16 (54 bytes). qs[0:32] hold elements 0-159,
// trit n of byte m being element 32n+m; qs[32:48] hold 160-239 the same way
// in rows of 16; trit n of qh[j] (n < 4) is element 240+4n+j.
func dequantTQ1_0(dst []float32, src []byte) {
	for i := 0; i+256 <= len(dst); i += 256 {
		b := src[i/256*54 : i/256*54+54]
		d := le16f(b[52:])
		y := dst[i : i+256]
		for n := 0; n < 5; n++ {
			for m := 0; m < 32; m++ {
				y[32*n+m] = float32(tq1Trit(b[m], n)) * d
			}
			for m := 0; m < 16; m++ {
				y[160+16*n+m] = float32(tq1Trit(b[32+m], n)) * d
			}
		}
		for n := 0; n < 4; n++ {
			for j := 0; j < 4; j++ {
				y[240+4*n+j] = float32(tq1Trit(b[48+j], n)) * d
			}
		}
	}
}

// tq2_0: qs[64], d f16 (66 bytes). Bits 2l..2l+1 of qs[32h+m] hold
// element 128h+32l+m as q+1.
func dequantTQ2_0(dst []float32, src []byte) {
	for i := 0; i+256 <= len(dst); i += 256 {
		b := src[i/256*66 : i/256*66+66]
		d := le16f(b[64:])
		y := dst[i : i+256]
		for h := 0; h < 2; h++ {
			for l := 0; l < 4; l++ {
				for m := 0; m < 32; m++ {
					q := int(b[32*h+m]>>(2*l)) & 3
					y[128*h+32*l+m] = float32(q-1) * d
				}
			}
		}
	}
}

// I2S returns the ternary value (-1, 0 or +1) of element j of a 128-element
// I2_S block blk (32 bytes): element j is bits 6-2g..7-2g of byte j%32,
// with g = j/32, storing value+1 (3 reads as 0, as Microsoft's
// dequantize_i2_s does).
func I2S(blk []byte, j int) int {
	q := int(blk[j%32]>>(6-2*(j/32))) & 3
	if q == 3 {
		return 0
	}
	return q - 1
}

// I2SScale returns the per-tensor scale of an I2_S tensor from its bytes
// (the f32 after the packed data).
func I2SScale(tensor []byte) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(tensor[len(tensor)-32:]))
}

// i2_s: blocks of 32 bytes per 128 elements, then the f32 scale in a
// 32-byte tail; src is the whole tensor.
func dequantI2S(dst []float32, src []byte) {
	s := I2SScale(src)
	for i := 0; i+128 <= len(dst); i += 128 {
		blk := src[i/128*32 : i/128*32+32]
		for j := 0; j < 128; j++ {
			dst[i+j] = float32(I2S(blk, j)) * s
		}
	}
}
