package cpu

import (
	"math"

	"github.com/webgguf/webgguf/compute"
)

// kvWrite stores row i of x ([HeadDim*NHeadKV] per row) at position Pos0+i
// of the cache laid out [kv_head][slot][dim], which holds position p in
// slot p mod n (n = its Ne[1]: an ordinary cache has p < n, a ring is
// shorter than the context).
func kvWrite(cache, x []float32, p compute.AttnParams, n, pos0 int) {
	row := p.HeadDim * p.NHeadKV
	for i := 0; i*row < len(x); i++ {
		slot := (pos0 + i) % n
		for h := range p.NHeadKV {
			o := (h*n + slot) * p.HeadDim
			copy(cache[o:o+p.HeadDim], x[i*row+h*p.HeadDim:i*row+(h+1)*p.HeadDim])
		}
	}
}

// attnKeys returns the positions [first, end) that the query at position
// pos sees: 0..pos (causal) or 0..last (a.NonCausal; last is the step's
// last position), from pos-Window+1 on where a.Window > 0, and at most the
// n positions a cache of n slots holds.
func attnKeys(a compute.AttnParams, pos, last, n int) (first, end int) {
	end = pos + 1
	if a.NonCausal {
		end = last + 1
	}
	if a.Window > 0 {
		first = max(0, pos-a.Window+1)
	}
	// A cache shorter than the bound that CheckStep enforces holds only
	// its last n positions (a ring needs no clamp: Graph.Attention made
	// it hold a window and a micro-batch).
	return max(first, end-n), end
}

// attention computes, for every row i and head h, softmax over the
// positions the query at Pos0+i sees (attnKeys) of q·k·Scale (soft-capped
// where a.Softcap > 0), times V, with K/V from kv head
// h/(NHead/NHeadKV). The caches hold n slots each, position p in slot
// p mod n; last is the step's last position (Pos0+N-1). Only the keys in
// range are visited: a window of W costs W positions at any depth.
func (p *program) attention(dst, q, kc, vc []float32, n int, a compute.AttnParams, pos0, rows, last int) {
	hd, group := a.HeadDim, a.NHead/a.NHeadKV
	row := hd * a.NHead
	// Work items are pairs of query heads of one KV group (attnHead2
	// loads each K and V element once for both), and the odd head out.
	pairs := (group + 1) / 2
	parallelFor(p.b.threads, rows*a.NHeadKV*pairs, 1, func(w, lo, hi int) {
		sc := p.scores[w]
		half := len(sc) / 2
		for t := lo; t < hi; t++ {
			i, g, pi := t/(a.NHeadKV*pairs), t/pairs%a.NHeadKV, t%pairs
			h := g*group + 2*pi
			first, end := attnKeys(a, pos0+i, last, n)
			m := end - first
			// The positions occupy slots s0.. of the cache, wrapping
			// around to slot 0 after m0 of them.
			s0 := first % n
			m0 := min(m, n-s0)
			kh, vh := kc[g*n*hd:(g+1)*n*hd], vc[g*n*hd:(g+1)*n*hd]
			k := [2][]float32{kh[s0*hd : (s0+m0)*hd], kh[:(m-m0)*hd]}
			v := [2][]float32{vh[s0*hd : (s0+m0)*hd], vh[:(m-m0)*hd]}
			o, qo := dst[i*row:(i+1)*row], q[i*row:(i+1)*row]
			if 2*pi+1 < group {
				attnHead2(o[h*hd:(h+1)*hd], o[(h+1)*hd:(h+2)*hd], qo[h*hd:(h+1)*hd], qo[(h+1)*hd:(h+2)*hd],
					k, v, sc[:m], sc[half:half+m], a.Scale, a.Softcap)
				continue
			}
			attnHead(o[h*hd:(h+1)*hd], qo[h*hd:(h+1)*hd], k, v, sc[:m], a.Scale, a.Softcap)
		}
	})
}

// attnHead is one head's attention over m = len(scores) positions: k and
// v hold them as two runs of rows of len(q) (the second empty unless the
// positions wrap around a ring), scores[:len(k[0])/len(q)] the first
// run's. Softcap > 0 caps the scaled scores before the softmax.
func attnHead(out, q []float32, k, v [2][]float32, scores []float32, scale, softcap float32) {
	hd := len(q)
	m0 := len(k[0]) / hd
	mx := attnScores(scores[:m0], q, k[0], scale)
	if m0 < len(scores) {
		mx = max(mx, attnScores(scores[m0:], q, k[1], scale))
	}
	if softcap > 0 {
		mx = capScores(scores, softcap)
	}
	var sum float64
	for j, s := range scores {
		e := expf(s - mx)
		scores[j] = e
		sum += float64(e)
	}
	out = out[:hd]
	clear(out)
	attnAccum(out, scores[:m0], v[0])
	if m0 < len(scores) {
		attnAccum(out, scores[m0:], v[1])
	}
	inv := float32(1 / sum)
	for d := range out {
		out[d] *= inv
	}
}

// capScores replaces every score s by c·tanh(s/c) and returns the new
// maximum.
func capScores(scores []float32, c float32) float32 {
	mx := float32(math.Inf(-1))
	for j, s := range scores {
		s = c * tanhf(s/c)
		scores[j] = s
		mx = max(mx, s)
	}
	return mx
}

// attnScores sets sc[j] = q·k_j·scale for the len(sc) rows of k and
// returns their maximum. The row loops are written inline, eight elements
// per iteration, instead of calling dot and axpy per position: under wasm
// a call and each loop back-edge (a jump through the function's resume
// dispatch) cost about as much as a head row's arithmetic; this way one
// gotiny layer at depth 512 takes 0.45 instead of 0.84 ms (V8, CPU time).
func attnScores(sc, q, k []float32, scale float32) float32 {
	hd := len(q)
	mx := float32(math.Inf(-1))
	for j := range sc {
		kr := k[j*hd : (j+1)*hd]
		var s0, s1, s2, s3 float32
		d := 0
		for ; d+8 <= hd; d += 8 {
			x, y := (*[8]float32)(q[d:]), (*[8]float32)(kr[d:])
			s0 += x[0]*y[0] + x[4]*y[4]
			s1 += x[1]*y[1] + x[5]*y[5]
			s2 += x[2]*y[2] + x[6]*y[6]
			s3 += x[3]*y[3] + x[7]*y[7]
		}
		for ; d < hd; d++ {
			s0 += q[d] * kr[d]
		}
		s := ((s0 + s1) + (s2 + s3)) * scale
		sc[j] = s
		mx = max(mx, s)
	}
	return mx
}

// attnAccum adds sc[j]·v_j to out for the len(sc) rows of v.
func attnAccum(out, sc, v []float32) {
	hd := len(out)
	for j, e := range sc {
		vr := v[j*hd : (j+1)*hd]
		d := 0
		for ; d+8 <= hd; d += 8 {
			u, x := (*[8]float32)(out[d:]), (*[8]float32)(vr[d:])
			u[0] += e * x[0]
			u[1] += e * x[1]
			u[2] += e * x[2]
			u[3] += e * x[3]
			u[4] += e * x[4]
			u[5] += e * x[5]
			u[6] += e * x[6]
			u[7] += e * x[7]
		}
		for ; d < hd; d++ {
			out[d] += e * vr[d]
		}
	}
}

// attnHead2 is attnHead for two query heads that share their K and V rows
// (GQA): each K and V element is loaded once for both. A gotiny layer at
// depth 512 (four query heads per KV head) takes 0.36 ms against 0.48
// with attnHead per head (V8 CPU time).
func attnHead2(out0, out1, q0, q1 []float32, k, v [2][]float32, sc0, sc1 []float32, scale, softcap float32) {
	hd := len(q0)
	q1 = q1[:hd]
	sc1 = sc1[:len(sc0)]
	m0 := len(k[0]) / hd
	mx0, mx1 := attnScores2(sc0[:m0], sc1[:m0], q0, q1, k[0], scale)
	if m0 < len(sc0) {
		a0, a1 := attnScores2(sc0[m0:], sc1[m0:], q0, q1, k[1], scale)
		mx0, mx1 = max(mx0, a0), max(mx1, a1)
	}
	if softcap > 0 {
		mx0, mx1 = capScores(sc0, softcap), capScores(sc1, softcap)
	}
	var sum0, sum1 float64
	for j := range sc0 {
		e0, e1 := expf(sc0[j]-mx0), expf(sc1[j]-mx1)
		sc0[j], sc1[j] = e0, e1
		sum0 += float64(e0)
		sum1 += float64(e1)
	}
	out0, out1 = out0[:hd], out1[:hd]
	clear(out0)
	clear(out1)
	attnAccum2(out0, out1, sc0[:m0], sc1[:m0], v[0])
	if m0 < len(sc0) {
		attnAccum2(out0, out1, sc0[m0:], sc1[m0:], v[1])
	}
	inv0, inv1 := float32(1/sum0), float32(1/sum1)
	for d := range out0 {
		out0[d] *= inv0
		out1[d] *= inv1
	}
}

// attnScores2 is attnScores for two queries q0, q1 of len(q0) elements.
func attnScores2(sc0, sc1, q0, q1, k []float32, scale float32) (mx0, mx1 float32) {
	hd := len(q0)
	q1 = q1[:hd]
	sc1 = sc1[:len(sc0)]
	mx0, mx1 = float32(math.Inf(-1)), float32(math.Inf(-1))
	for j := range sc0 {
		kr := k[j*hd : (j+1)*hd]
		var a0, a1, b0, b1 float32
		d := 0
		for ; d+8 <= hd; d += 8 {
			y := (*[8]float32)(kr[d:])
			x0, x1 := (*[8]float32)(q0[d:]), (*[8]float32)(q1[d:])
			y0, y1, y2, y3 := y[0], y[1], y[2], y[3]
			a0 += x0[0]*y0 + x0[2]*y2
			a1 += x0[1]*y1 + x0[3]*y3
			b0 += x1[0]*y0 + x1[2]*y2
			b1 += x1[1]*y1 + x1[3]*y3
			y0, y1, y2, y3 = y[4], y[5], y[6], y[7]
			a0 += x0[4]*y0 + x0[6]*y2
			a1 += x0[5]*y1 + x0[7]*y3
			b0 += x1[4]*y0 + x1[6]*y2
			b1 += x1[5]*y1 + x1[7]*y3
		}
		for ; d < hd; d++ {
			a0 += q0[d] * kr[d]
			b0 += q1[d] * kr[d]
		}
		s0, s1 := (a0+a1)*scale, (b0+b1)*scale
		sc0[j], sc1[j] = s0, s1
		mx0, mx1 = max(mx0, s0), max(mx1, s1)
	}
	return mx0, mx1
}

// attnAccum2 is attnAccum for two heads: out0 += sc0[j]·v_j, out1 +=
// sc1[j]·v_j.
func attnAccum2(out0, out1, sc0, sc1, v []float32) {
	hd := len(out0)
	out1 = out1[:hd]
	sc1 = sc1[:len(sc0)]
	for j := range sc0 {
		e0, e1 := sc0[j], sc1[j]
		vr := v[j*hd : (j+1)*hd]
		d := 0
		for ; d+8 <= hd; d += 8 {
			x := (*[8]float32)(vr[d:])
			u0, u1 := (*[8]float32)(out0[d:]), (*[8]float32)(out1[d:])
			v0, v1, v2, v3 := x[0], x[1], x[2], x[3]
			u0[0] += e0 * v0
			u0[1] += e0 * v1
			u0[2] += e0 * v2
			u0[3] += e0 * v3
			u1[0] += e1 * v0
			u1[1] += e1 * v1
			u1[2] += e1 * v2
			u1[3] += e1 * v3
			v0, v1, v2, v3 = x[4], x[5], x[6], x[7]
			u0[4] += e0 * v0
			u0[5] += e0 * v1
			u0[6] += e0 * v2
			u0[7] += e0 * v3
			u1[4] += e1 * v0
			u1[5] += e1 * v1
			u1[6] += e1 * v2
			u1[7] += e1 * v3
		}
		for ; d < hd; d++ {
			out0[d] += e0 * vr[d]
			out1[d] += e1 * vr[d]
		}
	}
}
