package gguf

import "math"

// Ports of ggml's k-quant reference quantizers (quantize_row_q4_K_ref,
// quantize_row_q5_K_ref, quantize_row_q6_K_ref) and their helpers
// make_qx_quants / make_qkx2_quants. Operation order and float32 rounding
// follow ggml-quants.c; products that feed a sum are wrapped in float32()
// to forbid FMA fusion (ggml's reference build rounds every operation).

// groupMaxEps is ggml's GROUP_MAX_EPS: a group below it counts as all zero.
const groupMaxEps = 1e-15

// nearestInt rounds half to even exactly as ggml's nearest_int (the
// 1.5·2^23 trick), valid for |f| < 2^22.
func nearestInt(f float32) int {
	v := float32(f) + 12582912
	return int(math.Float32bits(v)&0x007fffff) - 0x00400000
}

func clampInt(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

func sqrt32(v float32) float32 { return float32(math.Sqrt(float64(v))) }

// makeQXQuants is make_qx_quants with rmse_type 1 and no importance
// weights (the only form the reference quantizers use): symmetric levels
// in [-nmax, nmax-1], scale chosen by a small search minimising the
// x²-weighted error. L receives levels offset by nmax.
func makeQXQuants(n, nmax int, x []float32, L []int8) float32 {
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
	fn := float32(nmax)
	iscale := -fn / max
	var sumlx, suml2 float32
	for i := 0; i < n; i++ {
		l := clampInt(nearestInt(iscale*x[i]), -nmax, nmax-1)
		L[i] = int8(l + nmax)
		w := float32(x[i] * x[i])
		fl := float32(l)
		sumlx += float32(float32(w*x[i]) * fl)
		suml2 += float32(float32(w*fl) * fl)
	}
	var scale float32
	if suml2 != 0 {
		scale = sumlx / suml2
	}
	best := scale * sumlx
	for is := -9; is <= 9; is++ {
		if is == 0 {
			continue
		}
		iscale = -(fn + float32(0.1*float32(is))) / max
		sumlx, suml2 = 0, 0
		for i := 0; i < n; i++ {
			fl := float32(clampInt(nearestInt(iscale*x[i]), -nmax, nmax-1))
			w := float32(x[i] * x[i])
			sumlx += float32(float32(w*x[i]) * fl)
			suml2 += float32(float32(w*fl) * fl)
		}
		if suml2 > 0 && float32(sumlx*sumlx) > float32(best*suml2) {
			for i := 0; i < n; i++ {
				L[i] = int8(nmax + clampInt(nearestInt(iscale*x[i]), -nmax, nmax-1))
			}
			scale = sumlx / suml2
			best = scale * sumlx
		}
	}
	return scale
}

// makeQKX2Quants is make_qkx2_quants: asymmetric levels in [0, nmax] with a
// non-positive min, fitted by weighted least squares over nstep+1 trial
// scales. It returns the scale and -min (ggml's the_min).
func makeQKX2Quants(n, nmax int, x, weights []float32, L, Laux []uint8, rmin, rdelta float32, nstep int, useMad bool) (scale, theMin float32) {
	min, max := x[0], x[0]
	sumW := weights[0]
	sumX := float32(sumW * x[0])
	for i := 1; i < n; i++ {
		if x[i] < min {
			min = x[i]
		}
		if x[i] > max {
			max = x[i]
		}
		w := weights[i]
		sumW += w
		sumX += float32(w * x[i])
	}
	if min > 0 {
		min = 0
	}
	if max == min {
		for i := 0; i < n; i++ {
			L[i] = 0
		}
		return 0, -min
	}
	fn := float32(nmax)
	iscale := fn / (max - min)
	scale = 1 / iscale
	errOf := func(d float32) float32 {
		if useMad {
			return abs32(d)
		}
		return float32(d * d)
	}
	var bestError float32
	for i := 0; i < n; i++ {
		l := nearestInt(float32(iscale * (x[i] - min)))
		L[i] = uint8(clampInt(l, 0, nmax))
		diff := float32(float32(scale*float32(L[i]))+min) - x[i]
		bestError += float32(weights[i] * errOf(diff))
	}
	if nstep < 1 {
		return scale, -min
	}
	for is := 0; is <= nstep; is++ {
		iscale = float32(rmin+float32(rdelta*float32(is))) + fn
		iscale /= max - min
		var sumL, sumL2, sumXL float32
		for i := 0; i < n; i++ {
			l := clampInt(nearestInt(float32(iscale*(x[i]-min))), 0, nmax)
			Laux[i] = uint8(l)
			w, fl := weights[i], float32(l)
			sumL += float32(w * fl)
			sumL2 += float32(float32(w*fl) * fl)
			sumXL += float32(float32(w*fl) * x[i])
		}
		D := float32(sumW*sumL2) - float32(sumL*sumL)
		if D > 0 {
			thisScale := (float32(sumW*sumXL) - float32(sumX*sumL)) / D
			thisMin := (float32(sumL2*sumX) - float32(sumL*sumXL)) / D
			if thisMin > 0 {
				thisMin = 0
				thisScale = sumXL / sumL2
			}
			var curError float32
			for i := 0; i < n; i++ {
				diff := float32(float32(thisScale*float32(Laux[i]))+thisMin) - x[i]
				curError += float32(weights[i] * errOf(diff))
			}
			if curError < bestError {
				copy(L[:n], Laux[:n])
				bestError = curError
				scale, min = thisScale, thisMin
			}
		}
	}
	return scale, -min
}

// packScaleMinK4 stores the j-th 6-bit scale and min into q4_K/q5_K's
// 12-byte scales field (inverse of scaleMinK4).
func packScaleMinK4(s []byte, j int, ls, lm uint8) {
	if j < 4 {
		s[j] = ls
		s[j+4] = lm
		return
	}
	s[j+4] = ls&0xf | (lm&0xf)<<4
	s[j-4] |= (ls >> 4) << 6
	s[j] |= (lm >> 4) << 6
}

// quantKX2 is the shared body of quantize_row_q4_K_ref (nmax 15) and
// quantize_row_q5_K_ref (nmax 31): per 32-element group scale/min by
// makeQKX2Quants, 6-bit super-block scales, then re-quantize with the
// stored (f16-rounded) scales. It returns the super-block header and levels.
func quantKX2(x []float32, nmax int, rmin, rdelta float32, nstep int, scalesOut []byte, L *[qkK]uint8) (d, dmin uint16) {
	var weights [32]float32
	var laux [32]uint8
	var mins, scales [8]float32
	var maxScale, maxMin float32
	for j := 0; j < 8; j++ {
		g := x[32*j : 32*j+32]
		var sumX2 float32
		for _, v := range g {
			sumX2 += float32(v * v)
		}
		avX := sqrt32(sumX2 / 32)
		for l, v := range g {
			weights[l] = avX + abs32(v)
		}
		scales[j], mins[j] = makeQKX2Quants(32, nmax, g, weights[:], L[32*j:32*j+32], laux[:], rmin, rdelta, nstep, false)
		if scales[j] > maxScale {
			maxScale = scales[j]
		}
		if mins[j] > maxMin {
			maxMin = mins[j]
		}
	}
	var invScale, invMin float32
	if maxScale > 0 {
		invScale = 63 / maxScale
	}
	if maxMin > 0 {
		invMin = 63 / maxMin
	}
	for i := range scalesOut {
		scalesOut[i] = 0
	}
	for j := 0; j < 8; j++ {
		ls := min(63, uint8(nearestInt(invScale*scales[j])))
		lm := min(63, uint8(nearestInt(invMin*mins[j])))
		packScaleMinK4(scalesOut, j, ls, lm)
	}
	d, dmin = F32ToF16(maxScale/63), F32ToF16(maxMin/63)
	df, dminf := F16ToF32(d), F16ToF32(dmin)
	for j := 0; j < 8; j++ {
		sc, m := scaleMinK4(j, scalesOut)
		dd := df * float32(sc)
		if dd == 0 {
			continue
		}
		dm := dminf * float32(m)
		for ii := 0; ii < 32; ii++ {
			l := nearestInt(float32(x[32*j+ii]+dm) / dd)
			L[32*j+ii] = uint8(clampInt(l, 0, nmax))
		}
	}
	return d, dmin
}

func quantQ4K(dst []byte, src []float32) {
	var L [qkK]uint8
	for i := 0; i+qkK <= len(src); i += qkK {
		b := dst[i/qkK*144 : i/qkK*144+144]
		d, dmin := quantKX2(src[i:i+qkK], 15, -1, 0.1, 20, b[4:16], &L)
		put16u(b, d)
		put16u(b[2:], dmin)
		q := b[16:144]
		for j := 0; j < qkK; j += 64 {
			for l := 0; l < 32; l++ {
				q[j/2+l] = L[j+l] | L[j+l+32]<<4
			}
		}
	}
}

func quantQ5K(dst []byte, src []float32) {
	var L [qkK]uint8
	for i := 0; i+qkK <= len(src); i += qkK {
		b := dst[i/qkK*176 : i/qkK*176+176]
		d, dmin := quantKX2(src[i:i+qkK], 31, -0.5, 0.1, 15, b[4:16], &L)
		put16u(b, d)
		put16u(b[2:], dmin)
		qh, ql := b[16:48], b[48:176]
		for j := range qh {
			qh[j] = 0
		}
		m1, m2 := uint8(1), uint8(2)
		for n := 0; n < qkK; n += 64 {
			for j := 0; j < 32; j++ {
				l1, l2 := L[n+j], L[n+j+32]
				if l1 > 15 {
					l1 -= 16
					qh[j] |= m1
				}
				if l2 > 15 {
					l2 -= 16
					qh[j] |= m2
				}
				ql[n/2+j] = l1 | l2<<4
			}
			m1 <<= 2
			m2 <<= 2
		}
	}
}

func quantQ6K(dst []byte, src []float32) {
	var L [qkK]int8
	var scales [16]float32
	for i := 0; i+qkK <= len(src); i += qkK {
		x, b := src[i:i+qkK], dst[i/qkK*210:i/qkK*210+210]
		var maxScale, maxAbsScale float32
		for ib := 0; ib < 16; ib++ {
			s := makeQXQuants(16, 32, x[16*ib:], L[16*ib:])
			scales[ib] = s
			if a := abs32(s); a > maxAbsScale {
				maxAbsScale, maxScale = a, s
			}
		}
		if maxAbsScale < groupMaxEps {
			for k := range b {
				b[k] = 0
			}
			continue
		}
		iscale := -128 / maxScale
		put16(b[208:], 1/iscale)
		sc := b[192:208]
		for ib := 0; ib < 16; ib++ {
			sc[ib] = uint8(int8(min(127, nearestInt(iscale*scales[ib]))))
		}
		df := F16ToF32(uint16(b[208]) | uint16(b[209])<<8)
		for j := 0; j < 16; j++ {
			d := df * float32(int8(sc[j]))
			if d == 0 {
				continue
			}
			for ii := 0; ii < 16; ii++ {
				l := clampInt(nearestInt(x[16*j+ii]/d), -32, 31)
				L[16*j+ii] = int8(l + 32)
			}
		}
		ql, qh := b[0:128], b[128:192]
		for j := 0; j < qkK; j += 128 {
			for l := 0; l < 32; l++ {
				q1 := uint8(L[j+l]) & 0xf
				q2 := uint8(L[j+l+32]) & 0xf
				q3 := uint8(L[j+l+64]) & 0xf
				q4 := uint8(L[j+l+96]) & 0xf
				ql[j/2+l] = q1 | q3<<4
				ql[j/2+l+32] = q2 | q4<<4
				qh[j/4+l] = uint8(L[j+l])>>4 | uint8(L[j+l+32])>>4<<2 | uint8(L[j+l+64])>>4<<4 | uint8(L[j+l+96])>>4<<6
			}
		}
	}
}

func put16u(b []byte, h uint16) { b[0], b[1] = byte(h), byte(h>>8) }
