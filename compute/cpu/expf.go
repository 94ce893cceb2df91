package cpu

import "math"

// expf is e^x in float32 to about 1 ulp (Cephes' expf: x = n·ln2 + r,
// |r| ≤ ln2/2, a degree-7 polynomial for e^r, then 2^n through the
// exponent bits). math.Exp is a float64 software routine and a call:
// ~24 ns under wasm, and attention's softmax and SwiGLU need one per
// score and per feed-forward unit (~50k per token of a 100M model). Below
// −87.3 it returns 0 (no subnormals), above 88.7 +Inf.
func expf(x float32) float32 {
	switch {
	case x > 88.72283:
		return float32(math.Inf(1))
	case x < -87.33654:
		return 0
	}
	n := float32(math.Floor(float64(x*1.442695041 + 0.5)))
	r := x - n*0.693359375 + n*2.12194440e-4
	p := ((((((1.9875691500e-4*r+1.3981999507e-3)*r+8.3334519073e-3)*r+4.1665795894e-2)*r+1.6666665459e-1)*r+5.0000001201e-1)*r*r + r) + 1
	if n > 127 { // x in (88.38, 88.72]: 2^128 has no float32 exponent
		return p * math.Float32frombits(254<<23) * 2
	}
	return p * math.Float32frombits(uint32(int32(n)+127)<<23)
}

// tanhf is tanh(x) in float32 to about 2 ulp (Cephes' tanhf: an odd
// polynomial below 0.625, 1 − 2/(e^{2|x|}+1) above), through expf for the
// reason expf exists: Softcap caps every logit (256k per row for Gemma 2)
// and every attention score.
func tanhf(x float32) float32 {
	z := x
	if z < 0 {
		z = -z
	}
	if z > 0.625 {
		t := 1 - 2/(expf(z+z)+1)
		if x < 0 {
			t = -t
		}
		return t
	}
	s := x * x
	return ((((-5.70498872745e-3*s+2.06390887954e-2)*s-5.37397155531e-2)*s+1.33314422036e-1)*s-3.33332819422e-1)*s*x + x
}
