package cpu

import (
	"math"

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

// siluMul computes silu(g)·u, silu(x) = x/(1+e^-x).
func siluMul(dst, g, u []float32) {
	for i, x := range g {
		dst[i] = x / (1 + expf(-x)) * u[i]
	}
}

func add(dst, a, b []float32) {
	for i := range dst {
		dst[i] = a[i] + b[i]
	}
}
