package cpu

import (
	"math"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
)

// getRows dequantizes row ids[i] of the table into row i of dst. Ids were
// range-checked by compute.CheckStep.
func getRows(dst []float32, t gguf.GGMLType, table []byte, n int, ids []int32) {
	rb, _ := t.RowBytes(int64(n))
	for i, id := range ids {
		off := int64(id) * rb
		// Cannot fail: type and row size were checked at load.
		_ = gguf.DequantizeInto(dst[i*n:(i+1)*n], t, table[off:off+rb])
	}
}

// posRows writes row pos0+step·i of table into row i of dst for rows
// rows (step 1: learned positions; step 0: one row repeated).
func posRows(dst []float32, t gguf.GGMLType, table []byte, n, pos0, step, rows int) {
	rb, _ := t.RowBytes(int64(n))
	for i := range rows {
		off := int64(pos0+step*i) * rb
		_ = gguf.DequantizeInto(dst[i*n:(i+1)*n], t, table[off:off+rb])
	}
}

// selectRows copies rows rows[i] of x into row i of dst.
func selectRows(dst, x []float32, n int, rows []int32) {
	for i, r := range rows {
		copy(dst[i*n:(i+1)*n], x[int(r)*n:int(r+1)*n])
	}
}

// rmsNorm normalises every group of x to unit RMS and scales by w. The sum
// of squares is accumulated in float64, as ggml does.
func rmsNorm(dst, x, w []float32, group int, eps float32) {
	for o := 0; o+group <= len(x); o += group {
		xs := x[o : o+group]
		var sum float64
		for _, v := range xs {
			sum += float64(v) * float64(v)
		}
		scale := float32(1 / math.Sqrt(sum/float64(group)+float64(eps)))
		d := dst[o : o+group]
		if w == nil {
			for i, v := range xs {
				d[i] = v * scale
			}
			continue
		}
		for i, v := range xs {
			d[i] = v * scale * w[i]
		}
	}
}

// layerNorm normalises every group of x to zero mean and unit variance
// (the population variance, plus eps), then multiplies by w and adds b
// where not nil, as ggml_norm followed by ggml_mul and ggml_add: the sums
// are accumulated in float64, mean and variance rounded to f32.
func layerNorm(dst, x, w, b []float32, group int, eps float32) {
	for o := 0; o+group <= len(x); o += group {
		xs, d := x[o:o+group], dst[o:o+group]
		var sum float64
		for _, v := range xs {
			sum += float64(v)
		}
		mean := float32(sum / float64(group))
		var sum2 float64
		for i, v := range xs {
			v -= mean
			d[i] = v
			sum2 += float64(v * v)
		}
		variance := float32(sum2 / float64(group))
		scale := float32(1 / math.Sqrt(float64(variance+eps)))
		for i := range d {
			d[i] *= scale
		}
		if w != nil {
			for i := range d {
				d[i] *= w[i]
			}
		}
		if b != nil {
			for i := range d {
				d[i] += b[i]
			}
		}
	}
}

// siluMul computes silu(g)·u, silu(x) = x/(1+e^-x).
func siluMul(dst, g, u []float32) {
	for i, x := range g {
		dst[i] = x / (1 + expf(-x)) * u[i]
	}
}

// gelu is GELU in ggml's tanh form, 0.5·x·(1+tanh(√(2/π)·(x+0.044715·x³))),
// computed in f32 as x/(1+e^(−2u)), u = √(2/π)·(x+0.044715·x³): the same
// function (0.5·(1+tanh u) = 1/(1+e^(−2u))), one expf and no cancellation
// of 1+tanh u for negative x.
func gelu(x float32) float32 {
	const c = 0.7978845608028654 // √(2/π)
	u := c * x * (1 + 0.044715*x*x)
	return x / (1 + expf(-2*u))
}

// geluMul computes gelu(g)·u (GeGLU).
func geluMul(dst, g, u []float32) {
	for i, x := range g {
		dst[i] = gelu(x) * u[i]
	}
}

// glu computes act(g)·u.
func glu(dst, g, u []float32, act compute.ActFunc) {
	if act == compute.ActGELU {
		geluMul(dst, g, u)
		return
	}
	siluMul(dst, g, u)
}

// activate computes act(x).
func activate(dst, x []float32, act compute.ActFunc) {
	if act == compute.ActGELU {
		for i, v := range x {
			dst[i] = gelu(v)
		}
		return
	}
	for i, v := range x {
		dst[i] = v / (1 + expf(-v))
	}
}

func mul(dst, a, b []float32) {
	for i := range dst {
		dst[i] = a[i] * b[i]
	}
}

func scale(dst, x []float32, s float32) {
	for i, v := range x {
		dst[i] = v * s
	}
}

// softcap computes c·tanh(x/c).
func softcap(dst, x []float32, c float32) {
	for i, v := range x {
		dst[i] = c * tanhf(v/c)
	}
}

func add(dst, a, b []float32) {
	for i := range dst {
		dst[i] = a[i] + b[i]
	}
}
