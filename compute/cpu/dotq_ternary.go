package cpu

import "github.com/webgguf/webgguf/gguf"

// Fused dots of the ternary formats: Σ (t-1)·d·x is d·(Σ t·x - Σ x) with t
// in {0, 1, 2}, so the inner loops multiply by small table values and the
// 16-element sums of x (s16) supply Σ x.

// tq1Trits holds the five trits (0, 1, 2; most significant first) of every
// TQ1_0 byte, decoded as ggml does: ((byte·3^n mod 256)·3) >> 8.
var tq1Trits = func() (t [256][5]float32) {
	for b := range 256 {
		p := 1
		for n := range 5 {
			q := uint8(b * p)
			t[b][n] = float32(uint16(q) * 3 >> 8)
			p *= 3
		}
	}
	return
}()

// tq2Field maps a TQ2_0 byte to its four 2-bit fields as float32.
var tq2Field = func() (t [256][4]float32) {
	for b := range 256 {
		for l := range 4 {
			t[b][l] = float32(b >> (2 * l) & 3)
		}
	}
	return
}()

// sumX returns Σ x[i:i+256] from the 16-element sums.
func sumX(s16 []float32, i int) float32 {
	var s float32
	for _, v := range s16[i/16 : i/16+16] {
		s += v
	}
	return s
}

// dotTQ2_0: element 128h+32l+m is field l of byte 32h+m.
func dotTQ2_0(w []byte, x, s16 []float32) float32 {
	var sum float32
	for i := 0; i+256 <= len(x); i += 256 {
		b := (*[66]byte)(w[i/256*66:])
		xb := (*[256]float32)(x[i:])
		var a float32
		for h := range 2 {
			for m := range 32 {
				f := &tq2Field[b[32*h+m]]
				o := 128*h + m
				a += f[0]*xb[o] + f[1]*xb[o+32] + f[2]*xb[o+64] + f[3]*xb[o+96]
			}
		}
		sum += gguf.F16ToF32(uint16(b[64])|uint16(b[65])<<8) * (a - sumX(s16, i))
	}
	return sum
}

// dotTQ1_0: trit n of qs[m] is element 32n+m, of qs[32+m] element
// 160+16n+m, of qh[j] (n < 4) element 240+4n+j.
func dotTQ1_0(w []byte, x, s16 []float32) float32 {
	var sum float32
	for i := 0; i+256 <= len(x); i += 256 {
		b := (*[54]byte)(w[i/256*54:])
		xb := (*[256]float32)(x[i:])
		var a float32
		for m := range 32 {
			t := &tq1Trits[b[m]]
			a += t[0]*xb[m] + t[1]*xb[32+m] + t[2]*xb[64+m] + t[3]*xb[96+m] + t[4]*xb[128+m]
		}
		for m := range 16 {
			t := &tq1Trits[b[32+m]]
			a += t[0]*xb[160+m] + t[1]*xb[176+m] + t[2]*xb[192+m] + t[3]*xb[208+m] + t[4]*xb[224+m]
		}
		for j := range 4 {
			t := &tq1Trits[b[48+j]]
			a += t[0]*xb[240+j] + t[1]*xb[244+j] + t[2]*xb[248+j] + t[3]*xb[252+j]
		}
		sum += gguf.F16ToF32(uint16(b[52])|uint16(b[53])<<8) * (a - sumX(s16, i))
	}
	return sum
}
