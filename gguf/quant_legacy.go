package gguf

import (
	"encoding/binary"
	"math"
)

// Ports of ggml's quantize_row_{q4_0,q4_1,q5_0,q5_1,q8_0}_ref. Every
// product that feeds an addition is wrapped in float32() so no platform
// fuses it into an FMA: ggml's x86 build rounds each operation.

func quantF32(dst []byte, src []float32) {
	for i, v := range src {
		binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(v))
	}
}

func quantF16(dst []byte, src []float32) {
	for i, v := range src {
		binary.LittleEndian.PutUint16(dst[2*i:], F32ToF16(v))
	}
}

func quantBF16(dst []byte, src []float32) {
	for i, v := range src {
		binary.LittleEndian.PutUint16(dst[2*i:], F32ToBF16(v))
	}
}

func put16(b []byte, f float32) { binary.LittleEndian.PutUint16(b, F32ToF16(f)) }

// absMaxSigned returns the value of largest magnitude (first one wins).
func absMaxSigned(x []float32) float32 {
	var amax, max float32
	for _, v := range x {
		if a := abs32(v); amax < a {
			amax, max = a, v
		}
	}
	return max
}

func minMax(x []float32) (lo, hi float32) {
	lo, hi = math.MaxFloat32, -math.MaxFloat32
	for _, v := range x {
		// Comparisons as ggml writes them (not min/max builtins, which
		// order -0 below +0 and would flip the sign bit of a stored zero).
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	return lo, hi
}

func abs32(v float32) float32 { return math.Float32frombits(math.Float32bits(v) &^ (1 << 31)) }

func inv(d float32) float32 {
	if d == 0 {
		return 0
	}
	return 1 / d
}

func quantQ4_0(dst []byte, src []float32) {
	for i := 0; i+32 <= len(src); i += 32 {
		x, b := src[i:i+32], dst[i/32*18:i/32*18+18]
		d := absMaxSigned(x) / -8
		id := inv(d)
		put16(b, d)
		for j := 0; j < 16; j++ {
			x0 := int8(float32(x[j]*id) + 8.5)
			x1 := int8(float32(x[j+16]*id) + 8.5)
			b[2+j] = uint8(min(15, x0)) | uint8(min(15, x1))<<4
		}
	}
}

func quantQ4_1(dst []byte, src []float32) {
	for i := 0; i+32 <= len(src); i += 32 {
		x, b := src[i:i+32], dst[i/32*20:i/32*20+20]
		lo, hi := minMax(x)
		d := (hi - lo) / 15
		id := inv(d)
		put16(b, d)
		put16(b[2:], lo)
		for j := 0; j < 16; j++ {
			x0 := int8(float32((x[j]-lo)*id) + 0.5)
			x1 := int8(float32((x[j+16]-lo)*id) + 0.5)
			b[4+j] = uint8(min(15, x0)) | uint8(min(15, x1))<<4
		}
	}
}

func quantQ5_0(dst []byte, src []float32) {
	for i := 0; i+32 <= len(src); i += 32 {
		x, b := src[i:i+32], dst[i/32*22:i/32*22+22]
		d := absMaxSigned(x) / -16
		id := inv(d)
		put16(b, d)
		var qh uint32
		for j := 0; j < 16; j++ {
			x0 := uint8(min(31, int8(float32(x[j]*id)+16.5)))
			x1 := uint8(min(31, int8(float32(x[j+16]*id)+16.5)))
			b[6+j] = x0&0xf | (x1&0xf)<<4
			qh |= uint32(x0>>4&1) << uint(j)
			qh |= uint32(x1>>4&1) << uint(j+16)
		}
		binary.LittleEndian.PutUint32(b[2:], qh)
	}
}

func quantQ5_1(dst []byte, src []float32) {
	for i := 0; i+32 <= len(src); i += 32 {
		x, b := src[i:i+32], dst[i/32*24:i/32*24+24]
		lo, hi := minMax(x)
		d := (hi - lo) / 31
		id := inv(d)
		put16(b, d)
		put16(b[2:], lo)
		var qh uint32
		for j := 0; j < 16; j++ {
			x0 := uint8(float32((x[j]-lo)*id) + 0.5)
			x1 := uint8(float32((x[j+16]-lo)*id) + 0.5)
			b[8+j] = x0&0xf | (x1&0xf)<<4
			qh |= uint32(x0>>4&1) << uint(j)
			qh |= uint32(x1>>4&1) << uint(j+16)
		}
		binary.LittleEndian.PutUint32(b[4:], qh)
	}
}

func quantQ8_0(dst []byte, src []float32) {
	for i := 0; i+32 <= len(src); i += 32 {
		x, b := src[i:i+32], dst[i/32*34:i/32*34+34]
		var amax float32
		for _, v := range x {
			if a := abs32(v); !(amax > a) {
				amax = a
			}
		}
		d := amax / 127
		id := inv(d)
		put16(b, d)
		for j, v := range x {
			// roundf: half away from zero, as math.Round.
			b[2+j] = uint8(int8(math.Round(float64(v * id))))
		}
	}
}
