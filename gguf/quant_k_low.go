package gguf

// Ports of ggml's quantize_row_q2_K_ref and quantize_row_q3_K_ref (the
// 2- and 3-bit k-quants), with make_q3_quants. Same rounding rules as
// quant_k.go.

// makeQ3Quants is make_q3_quants with do_rmse: symmetric levels in
// [-nmax, nmax-1] refined by coordinate descent on the x²-weighted error.
// L receives levels offset by nmax.
func makeQ3Quants(n, nmax int, x []float32, L []int8) float32 {
	var max, amax float32
	for i := 0; i < n; i++ {
		if ax := abs32(x[i]); ax > amax {
			amax, max = ax, x[i]
		}
	}
	if amax < groupMaxEps {
		for i := 0; i < n; i++ {
			L[i] = 0
		}
		return 0
	}
	iscale := -float32(nmax) / max
	var sumlx, suml2 float32
	for i := 0; i < n; i++ {
		l := clampInt(nearestInt(iscale*x[i]), -nmax, nmax-1)
		L[i] = int8(l)
		w := float32(x[i] * x[i])
		fl := float32(l)
		sumlx += float32(float32(w*x[i]) * fl)
		suml2 += float32(float32(w*fl) * fl)
	}
	for itry := 0; itry < 5; itry++ {
		changed := 0
		for i := 0; i < n; i++ {
			w := float32(x[i] * x[i])
			li := float32(L[i])
			slx := sumlx - float32(float32(w*x[i])*li)
			if slx > 0 {
				sl2 := suml2 - float32(float32(w*li)*li)
				nl := clampInt(nearestInt(float32(x[i]*sl2)/slx), -nmax, nmax-1)
				if nl != int(L[i]) {
					fl := float32(nl)
					slx += float32(float32(w*x[i]) * fl)
					sl2 += float32(float32(w*fl) * fl)
					if sl2 > 0 && float32(float32(slx*slx)*suml2) > float32(float32(sumlx*sumlx)*sl2) {
						L[i] = int8(nl)
						sumlx, suml2 = slx, sl2
						changed++
					}
				}
			}
		}
		if changed == 0 {
			break
		}
	}
	for i := 0; i < n; i++ {
		L[i] += int8(nmax)
	}
	if suml2 > 0 {
		return sumlx / suml2
	}
	return 0
}

// packQ2Q3 stores 256 2-bit levels four to a byte, as ggml's q2_K/q3_K qs.
func packQ2Q3(qs []byte, L []uint8) {
	for j := 0; j < qkK; j += 128 {
		for l := 0; l < 32; l++ {
			qs[j/4+l] = L[j+l] | L[j+l+32]<<2 | L[j+l+64]<<4 | L[j+l+96]<<6
		}
	}
}

func quantQ2K(dst []byte, src []float32) {
	var L [qkK]uint8
	var laux [16]uint8
	var weights, mins, scales [16]float32
	for i := 0; i+qkK <= len(src); i += qkK {
		x, b := src[i:i+qkK], dst[i/qkK*84:i/qkK*84+84]
		sc := b[0:16]
		var maxScale, maxMin float32
		for j := 0; j < 16; j++ {
			g := x[16*j : 16*j+16]
			for l, v := range g {
				weights[l] = abs32(v)
			}
			scales[j], mins[j] = makeQKX2Quants(16, 3, g, weights[:], L[16*j:16*j+16], laux[:], -0.5, 0.1, 15, true)
			if scales[j] > maxScale {
				maxScale = scales[j]
			}
			if mins[j] > maxMin {
				maxMin = mins[j]
			}
		}
		if maxScale > 0 {
			iscale := 15 / maxScale
			for j := 0; j < 16; j++ {
				sc[j] = uint8(nearestInt(iscale * scales[j]))
			}
			put16(b[80:], maxScale/15)
		} else {
			for j := range sc {
				sc[j] = 0
			}
			put16(b[80:], 0)
		}
		if maxMin > 0 {
			iscale := 15 / maxMin
			for j := 0; j < 16; j++ {
				sc[j] |= uint8(nearestInt(iscale*mins[j])) << 4
			}
			put16(b[82:], maxMin/15)
		} else {
			put16(b[82:], 0)
		}
		df, dminf := le16f(b[80:]), le16f(b[82:])
		for j := 0; j < 16; j++ {
			d := df * float32(sc[j]&0xf)
			if d == 0 {
				continue
			}
			dm := dminf * float32(sc[j]>>4)
			for ii := 0; ii < 16; ii++ {
				l := nearestInt(float32(x[16*j+ii]+dm) / d)
				L[16*j+ii] = uint8(clampInt(l, 0, 3))
			}
		}
		packQ2Q3(b[16:80], L[:])
	}
}

func quantQ3K(dst []byte, src []float32) {
	var L [qkK]int8
	var scales [16]float32
	var Lu [qkK]uint8
	for i := 0; i+qkK <= len(src); i += qkK {
		x, b := src[i:i+qkK], dst[i/qkK*110:i/qkK*110+110]
		hmask, qs, sc := b[0:32], b[32:96], b[96:108]
		var maxScale, amax float32
		for j := 0; j < 16; j++ {
			scales[j] = makeQ3Quants(16, 4, x[16*j:], L[16*j:])
			if s := abs32(scales[j]); s > amax {
				amax, maxScale = s, scales[j]
			}
		}
		for k := range sc {
			sc[k] = 0
		}
		if maxScale != 0 {
			iscale := -32 / maxScale
			for j := 0; j < 16; j++ {
				l := int8(nearestInt(iscale * scales[j]))
				l = int8(clampInt(int(l), -32, 31)) + 32
				if j < 8 {
					sc[j] = uint8(l) & 0xf
				} else {
					sc[j-8] |= (uint8(l) & 0xf) << 4
				}
				l >>= 4
				sc[j%4+8] |= uint8(l) << (2 * uint(j/4))
			}
			put16(b[108:], 1/iscale)
		} else {
			put16(b[108:], 0)
		}
		dAll := le16f(b[108:])
		for j := 0; j < 16; j++ {
			var s int8
			if j < 8 {
				s = int8(sc[j] & 0xf)
			} else {
				s = int8(sc[j-8] >> 4)
			}
			s = (s | int8((sc[8+j%4]>>(2*uint(j/4))&3)<<4)) - 32
			d := dAll * float32(s)
			if d == 0 {
				continue
			}
			for ii := 0; ii < 16; ii++ {
				l := clampInt(nearestInt(x[16*j+ii]/d), -4, 3)
				L[16*j+ii] = int8(l + 4)
			}
		}
		for k := range hmask {
			hmask[k] = 0
		}
		m, hm := 0, uint8(1)
		for j := 0; j < qkK; j++ {
			v := uint8(L[j])
			if v > 3 {
				hmask[m] |= hm
				v -= 4
			}
			Lu[j] = v
			if m++; m == qkK/8 {
				m, hm = 0, hm<<1
			}
		}
		packQ2Q3(qs, Lu[:])
	}
}
