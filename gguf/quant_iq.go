package gguf

// Ports of ggml's iq4_nl and iq4_xs quantizers (quantize_iq4_nl /
// quantize_iq4_xs without an importance matrix, i.e. what llama-quantize
// runs): per 32-element block, a scale search over the non-linear codebook
// weighted by x², then (iq4_xs) 6-bit sub-block scales under one f16 scale.

// bestIndexIQ4 returns the codebook index nearest to x; x picks level i
// once it reaches the midpoint of levels i-1 and i (ggml's best_index_int8;
// doubling x keeps the comparison exact).
func bestIndexIQ4(x float32) int {
	x2 := x + x
	idx := 0
	for step := 8; step > 0; step >>= 1 {
		j := idx + step
		if x2 >= float32(int(kvaluesIQ4NL[j-1])+int(kvaluesIQ4NL[j])) {
			idx = j
		}
	}
	return idx
}

// iq4BlockScale finds the scale of one 32-element block (ggml's inner loop
// of quantize_row_iq4_nl_impl with ntry 7 and weights x²).
func iq4BlockScale(xb []float32, weight []float32) float32 {
	var amax, max float32
	for j, v := range xb {
		weight[j] = float32(v * v)
		if a := abs32(v); a > amax {
			amax, max = a, v
		}
	}
	if amax < groupMaxEps {
		return 0
	}
	v0 := float32(kvaluesIQ4NL[0])
	d := -max / v0
	id := 1 / d
	var sumqx, sumq2 float32
	for j, v := range xb {
		q := float32(kvaluesIQ4NL[bestIndexIQ4(id*v)])
		w := weight[j]
		sumqx += float32(float32(w*q) * v)
		sumq2 += float32(float32(w*q) * q)
	}
	d = 0
	if sumq2 > 0 {
		d = sumqx / sumq2
	}
	best := d * sumqx
	for itry := -7; itry <= 7; itry++ {
		id = float32(itry+int(kvaluesIQ4NL[0])) / max
		sumqx, sumq2 = 0, 0
		for j, v := range xb {
			q := float32(kvaluesIQ4NL[bestIndexIQ4(id*v)])
			w := weight[j]
			sumqx += float32(float32(w*q) * v)
			sumq2 += float32(float32(w*q) * q)
		}
		if sumq2 > 0 && float32(sumqx*sumqx) > float32(best*sumq2) {
			d = sumqx / sumq2
			best = d * sumqx
		}
	}
	return d
}

// packIQ4 stores 32 codebook indices as ggml does: low nibbles hold
// elements 0..15, high nibbles 16..31.
func packIQ4(q []byte, L []uint8) {
	for j := 0; j < 16; j++ {
		q[j] = L[j] | L[16+j]<<4
	}
}

func quantIQ4NL(dst []byte, src []float32) {
	var weight [32]float32
	var L [32]uint8
	for i := 0; i+32 <= len(src); i += 32 {
		x, b := src[i:i+32], dst[i/32*18:i/32*18+18]
		d := iq4BlockScale(x, weight[:])
		put16(b, d)
		id := inv(d)
		for j, v := range x {
			L[j] = uint8(bestIndexIQ4(id * v))
		}
		packIQ4(b[2:18], L[:])
	}
}

func quantIQ4XS(dst []byte, src []float32) {
	var weight [32]float32
	var scales [8]float32
	var L [32]uint8
	for i := 0; i+qkK <= len(src); i += qkK {
		x, b := src[i:i+qkK], dst[i/qkK*136:i/qkK*136+136]
		var maxScale, amaxScale float32
		for ib := 0; ib < 8; ib++ {
			scales[ib] = iq4BlockScale(x[32*ib:32*ib+32], weight[:])
			if a := abs32(scales[ib]); a > amaxScale {
				amaxScale, maxScale = a, scales[ib]
			}
		}
		d := -maxScale / 32
		put16(b, d)
		id := inv(d)
		var sh uint16
		sl := b[4:8]
		for k := range sl {
			sl[k] = 0
		}
		for ib := 0; ib < 8; ib++ {
			l := clampInt(nearestInt(id*scales[ib]), -32, 31)
			dl := d * float32(l)
			idl := inv(dl)
			for j, v := range x[32*ib : 32*ib+32] {
				L[j] = uint8(bestIndexIQ4(idl * v))
			}
			packIQ4(b[8+16*ib:8+16*ib+16], L[:])
			l += 32
			sl[ib/2] |= uint8(l&0xf) << (4 * uint(ib%2))
			sh |= uint16(l>>4) << (2 * uint(ib))
		}
		b[2], b[3] = byte(sh), byte(sh>>8)
	}
}
