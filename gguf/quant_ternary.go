package gguf

import (
	"encoding/binary"
	"math"
)

// Ports of ggml's quantize_row_tq1_0_ref / quantize_row_tq2_0_ref (what
// llama-quantize runs for TQ1_0 and TQ2_0) and of Microsoft BitNet's
// quantize_i2_s. The TQ quantizers scale each 256-element block by its
// absolute maximum and round to {-1, 0, +1}, so they are lossless on
// ternary weights whose block holds a nonzero; I2_S keeps only the signs
// and the tensor's absolute maximum.

// tqTrit is lroundf(x·id)+1 (round half away from zero, as math.Round).
func tqTrit(x, id float32) uint8 { return uint8(int(math.Round(float64(x*id))) + 1) }

func tqScale(x []float32) (d, id float32) {
	var amax float32
	for _, v := range x {
		amax = max(amax, abs32(v))
	}
	return amax, inv(amax)
}

// tq1Pack stores a base-3 number of 5 trits as ceil(v·256/243).
func tq1Pack(v uint8) uint8 { return uint8((uint16(v)*256 + 242) / 243) }

func quantTQ1_0(dst []byte, src []float32) {
	for i := 0; i+256 <= len(src); i += 256 {
		x, b := src[i:i+256], dst[i/256*54:i/256*54+54]
		d, id := tqScale(x)
		put16(b[52:], d)
		for m := 0; m < 32; m++ {
			var q uint8
			for n := 0; n < 5; n++ {
				q = q*3 + tqTrit(x[m+32*n], id)
			}
			b[m] = tq1Pack(q)
		}
		for m := 0; m < 16; m++ {
			var q uint8
			for n := 0; n < 5; n++ {
				q = q*3 + tqTrit(x[160+m+16*n], id)
			}
			b[32+m] = tq1Pack(q)
		}
		for j := 0; j < 4; j++ {
			var q uint8
			for m := 0; m < 4; m++ {
				q = q*3 + tqTrit(x[240+j+4*m], id)
			}
			b[48+j] = tq1Pack(q * 3) // the first trit in the most significant place
		}
	}
}

func quantTQ2_0(dst []byte, src []float32) {
	for i := 0; i+256 <= len(src); i += 256 {
		x, b := src[i:i+256], dst[i/256*66:i/256*66+66]
		d, id := tqScale(x)
		put16(b[64:], d)
		for h := 0; h < 2; h++ {
			for m := 0; m < 32; m++ {
				var q uint8
				for l := 0; l < 4; l++ {
					q |= (tqTrit(x[128*h+32*l+m], id) & 3) << (2 * l)
				}
				b[32*h+m] = q
			}
		}
	}
}

// quantI2S encodes a whole tensor: the scale is max |x| (in float64, then
// f32), an element below 1e-6 in magnitude becomes 0 and any other its
// sign, as quantize_i2_s does. The tail holds the scale and zeros.
func quantI2S(dst []byte, src []float32) {
	var amax float64
	for _, v := range src {
		amax = math.Max(amax, math.Abs(float64(v)))
	}
	clear(dst)
	for i, v := range src {
		q := uint8(1)
		switch {
		case math.Abs(float64(v)) < 1e-6:
		case float64(v)*amax > 0:
			q = 2
		default:
			q = 0
		}
		blk, j := i/128, i%128
		dst[blk*32+j%32] |= q << (6 - 2*(j/32))
	}
	binary.LittleEndian.PutUint32(dst[len(dst)-32:], math.Float32bits(float32(amax)))
}
