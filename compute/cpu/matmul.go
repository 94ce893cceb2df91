package cpu

import (
	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
)

// fusedMaxRows is the largest token count for which the fused
// dequantize-and-dot kernels beat expanding each weight row once and
// reusing it for every token row.
const fusedMaxRows = 3

// matMul computes dst[n][m] = Σ_k w[m][k]·x[n][k] (+bias[m]) for the valid
// rows n of x. Work is split over weight rows m, so each worker reads its
// share of the quantized weights exactly once per call.
func (p *program) matMul(dst []float32, w *compute.Tensor, x []float32, rows int, bias []float32) {
	k, m := w.Ne[0], w.Ne[1]
	data := p.b.weights[w]
	rb, _ := w.Type.RowBytes(int64(k))
	// Bias is added in a pass of its own: the kernels store their sums
	// straight into dst (a closure per row cost an indirect call per
	// output and an allocation per product).
	if bias != nil {
		defer func() {
			for n := range rows {
				d := dst[n*m : (n+1)*m]
				for r, b := range bias[:m] {
					d[r] += b
				}
			}
		}()
	}
	if fd := fusedDots[w.Type]; fd != nil && rows <= fusedMaxRows {
		var s16 []float32
		if k%16 == 0 {
			s16 = p.xsum[:rows*k/16]
			for n := range rows {
				sums16(s16[n*k/16:(n+1)*k/16], x[n*k:(n+1)*k])
			}
		}
		if useXQ && w.Type == gguf.TypeQ4_K && k%256 == 0 {
			p.matVecXQ(w, data, rb, x, rows, s16, dst)
			return
		}
		if useXQ && w.Type == gguf.TypeQ6_K && k%256 == 0 {
			p.matVecX16(w, data, rb, x, rows, dst)
			return
		}
		parallelFor(p.b.threads, m, 16, func(_, lo, hi int) {
			for r := lo; r < hi; r++ {
				row := data[int64(r)*rb : int64(r+1)*rb]
				for n := range rows {
					var s []float32
					if s16 != nil {
						s = s16[n*k/16:]
					}
					dst[n*m+r] = fd(row, x[n*k:(n+1)*k], s)
				}
			}
		})
		return
	}
	if useXQ && w.Type == gguf.TypeQ4_K && k%256 == 0 {
		p.matMulXQ4(dst, w, data, rb, x, rows)
		return
	}
	// Expand two weight rows at a time and multiply them with four token
	// rows at a time: 8 accumulators share each load.
	parallelFor(p.b.threads, (m+1)/2, 8, func(wk, lo, hi int) {
		buf := p.rowBuf[wk][:2*k]
		w0, w1 := buf[:k], buf[k:]
		for r := 2 * lo; r < min(2*hi, m); r += 2 {
			// Cannot fail: type and sizes were checked at load.
			_ = gguf.DequantizeInto(w0, w.Type, data[int64(r)*rb:int64(r+1)*rb])
			pair := r+1 < m
			if pair {
				_ = gguf.DequantizeInto(w1, w.Type, data[int64(r+1)*rb:int64(r+2)*rb])
			} else {
				clear(w1)
			}
			n := 0
			for ; n+4 <= rows; n += 4 {
				s := dot2x4(w0, w1, x[n*k:(n+4)*k])
				for j := range 4 {
					dst[(n+j)*m+r] = s[j]
					if pair {
						dst[(n+j)*m+(r+1)] = s[4+j]
					}
				}
			}
			for ; n < rows; n++ {
				xn := x[n*k : (n+1)*k]
				dst[n*m+r] = dot(w0, xn)
				if pair {
					dst[n*m+(r+1)] = dot(w1, xn)
				}
			}
		}
	})
}

// matVecXQ is matMul's fused path with the activations quantized to 10
// bits once per row and the integer q4_K kernel (dotq_xq.go).
func (p *program) matVecXQ(w *compute.Tensor, data []byte, rb int64, x []float32, rows int, s16 []float32, dst []float32) {
	k, m := w.Ne[0], w.Ne[1]
	xw, nb := xqWords(k), k/32
	for n := range rows {
		quantizeXQ(p.xq[n*xw:(n+1)*xw], p.xd[n*nb:(n+1)*nb], x[n*k:(n+1)*k])
	}
	// Rows in pairs: each activation word is loaded once for two rows
	// (~10% faster per row under wasm).
	parallelFor(p.b.threads, m, 16, func(_, lo, hi int) {
		r := lo
		for ; r+2 <= hi; r += 2 {
			ra := data[int64(r)*rb : int64(r+1)*rb]
			rb2 := data[int64(r+1)*rb : int64(r+2)*rb]
			for n := range rows {
				a, b := dotQ4KXQ2(ra, rb2, p.xq[n*xw:(n+1)*xw], p.xd[n*nb:(n+1)*nb], s16[n*k/16:(n+1)*k/16])
				dst[n*m+r] = a
				dst[n*m+(r+1)] = b
			}
		}
		for ; r < hi; r++ {
			row := data[int64(r)*rb : int64(r+1)*rb]
			for n := range rows {
				dst[n*m+r] = dotQ4KXQ(row, p.xq[n*xw:(n+1)*xw], p.xd[n*nb:(n+1)*nb], s16[n*k/16:(n+1)*k/16])
			}
		}
	})
}

// matMulXQ4 is matMul's prefill path for q4_K in the browser build: every
// token row quantized once (dotq_xq.go), then each weight row against four
// token rows at a time (dotQ4KXQ4), which unpacks the row once for the
// four: 1.4× the f32 path (expand, then dot2x4) under wasm.
func (p *program) matMulXQ4(dst []float32, w *compute.Tensor, data []byte, rb int64, x []float32, rows int) {
	k, m := w.Ne[0], w.Ne[1]
	xw, nb, ng := xqWords(k), k/32, k/16
	for n := range rows {
		quantizeXQ(p.xq[n*xw:(n+1)*xw], p.xd[n*nb:(n+1)*nb], x[n*k:(n+1)*k])
		sums16(p.xsum[n*ng:(n+1)*ng], x[n*k:(n+1)*k])
	}
	parallelFor(p.b.threads, m, 4, func(_, lo, hi int) {
		for r := lo; r < hi; r++ {
			row := data[int64(r)*rb : int64(r+1)*rb]
			n := 0
			for ; n+4 <= rows; n += 4 {
				s := dotQ4KXQ4(row, p.xq[n*xw:(n+4)*xw], p.xd[n*nb:(n+4)*nb], p.xsum[n*ng:(n+4)*ng])
				for j, v := range s {
					dst[(n+j)*m+r] = v
				}
			}
			for ; n < rows; n++ {
				dst[n*m+r] = dotQ4KXQ(row, p.xq[n*xw:(n+1)*xw], p.xd[n*nb:(n+1)*nb], p.xsum[n*ng:(n+1)*ng])
			}
		}
	})
}

// matVecX16 is matMul's fused path for q6_K with the activations
// quantized to 16 bits once per row and the integer kernel (dotq_x16.go).
func (p *program) matVecX16(w *compute.Tensor, data []byte, rb int64, x []float32, rows int, dst []float32) {
	k, m := w.Ne[0], w.Ne[1]
	xw, nb, ng := x16Words(k), k/256, k/16
	for n := range rows {
		quantizeX16(p.x16[n*xw:(n+1)*xw], p.x16s[n*nb:(n+1)*nb], p.x16u[n*ng:(n+1)*ng], x[n*k:(n+1)*k])
	}
	parallelFor(p.b.threads, m, 16, func(_, lo, hi int) {
		for r := lo; r < hi; r++ {
			row := data[int64(r)*rb : int64(r+1)*rb]
			for n := range rows {
				dst[n*m+r] = dotQ6KX16(row, p.x16[n*xw:(n+1)*xw], p.x16s[n*nb:(n+1)*nb], p.x16u[n*ng:(n+1)*ng])
			}
		}
	})
}

// dot2x4 returns the products of weight rows a, b with the four rows of x
// (len 4·len(a)): [a·x0, a·x1, a·x2, a·x3, b·x0, b·x1, b·x2, b·x3].
func dot2x4(a, b, x []float32) [8]float32 {
	k := len(a)
	b = b[:k]
	x0, x1, x2, x3 := x[:k], x[k:2*k], x[2*k:3*k], x[3*k:4*k]
	var s0, s1, s2, s3, t0, t1, t2, t3 float32
	for i, av := range a {
		bv := b[i]
		v0, v1, v2, v3 := x0[i], x1[i], x2[i], x3[i]
		s0 += av * v0
		s1 += av * v1
		s2 += av * v2
		s3 += av * v3
		t0 += bv * v0
		t1 += bv * v1
		t2 += bv * v2
		t3 += bv * v3
	}
	return [8]float32{s0, s1, s2, s3, t0, t1, t2, t3}
}

// dot is the f32 inner product with four partial sums (fewer dependent
// adds; Go does not vectorize).
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}
