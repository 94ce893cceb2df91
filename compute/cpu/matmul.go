package cpu

import (
	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
)

// matMul computes dst[n][m] = Σ_k w[m][k]·x[n][k] (+bias[m]) for the valid
// rows n of x. Work is split over weight rows m; each worker dequantizes
// one weight row at a time into its scratch and reuses it for every token
// row, so the quantized weights are read once per call.
func (p *program) matMul(dst []float32, w *compute.Tensor, x []float32, rows int, bias []float32) {
	k, m := w.Ne[0], w.Ne[1]
	data := p.b.weights[w]
	rb, _ := w.Type.RowBytes(int64(k))
	parallelFor(p.b.threads, m, 16, func(wk, lo, hi int) {
		buf := p.rowBuf[wk][:k]
		for r := lo; r < hi; r++ {
			// Cannot fail: type and sizes were checked at load.
			_ = gguf.DequantizeInto(buf, w.Type, data[int64(r)*rb:int64(r+1)*rb])
			var b float32
			if bias != nil {
				b = bias[r]
			}
			for n := range rows {
				dst[n*m+r] = dot(buf, x[n*k:(n+1)*k]) + b
			}
		}
	})
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

// axpy adds a·x to y.
func axpy(y []float32, a float32, x []float32) {
	x = x[:len(y)]
	for i := range y {
		y[i] += a * x[i]
	}
}
