// Package ref holds float64 CPU references for the kernels in package
// shaders. Weights enter as gguf's dequantized float32 values widened to
// float64, so a kernel is judged against ggml's block formats and exact
// arithmetic, never against another GPU result.
package ref

import (
	"math"
	"sort"

	"github.com/webgguf/webgguf/gguf"
)

// Dequant decodes n values of type t with the gguf package (ggml's layouts).
func Dequant(t gguf.GGMLType, data []byte, n int) ([]float64, error) {
	f, err := gguf.Dequantize(t, data, n)
	if err != nil {
		return nil, err
	}
	return Widen(f), nil
}

// Widen converts float32 values to float64.
func Widen(f []float32) []float64 {
	out := make([]float64, len(f))
	for i, v := range f {
		out[i] = float64(v)
	}
	return out
}

// Matvec returns y[n] = Σ_k w[n*K+k]·x[k] and, per row, Σ_k |w·x| (the scale
// an f32 accumulation error is proportional to).
func Matvec(w, x []float64, N, K int) (y, mag []float64) {
	y = make([]float64, N)
	mag = make([]float64, N)
	for n := 0; n < N; n++ {
		for k := 0; k < K; k++ {
			p := w[n*K+k] * x[k]
			y[n] += p
			mag[n] += math.Abs(p)
		}
	}
	return y, mag
}

// Matmul returns y[m*N+n] = Σ_k x[m*K+k]·w[n*K+k] and the matching Σ|·|.
func Matmul(w, x []float64, M, N, K int) (y, mag []float64) {
	y = make([]float64, M*N)
	mag = make([]float64, M*N)
	for m := 0; m < M; m++ {
		for n := 0; n < N; n++ {
			var s, a float64
			for k := 0; k < K; k++ {
				p := x[m*K+k] * w[n*K+k]
				s += p
				a += math.Abs(p)
			}
			y[m*N+n], mag[m*N+n] = s, a
		}
	}
	return y, mag
}

// RMSNorm normalizes each K-row of x: x / sqrt(mean(x²) + eps) · w.
func RMSNorm(x, w []float64, K int, eps float64) []float64 {
	y := make([]float64, len(x))
	for r := 0; r < len(x)/K; r++ {
		row := x[r*K : (r+1)*K]
		var ss float64
		for _, v := range row {
			ss += v * v
		}
		inv := 1 / math.Sqrt(ss/float64(K)+eps)
		for k, v := range row {
			y[r*K+k] = v * inv * w[k]
		}
	}
	return y
}

// RoPE rotates x[M][H][D] (a copy is returned) as ggml's rope: token i at
// position pos0+i, pair j < nrot/2 rotated by (pos·scale·base^(-2j/nrot))/ff[j]
// (ff nil means 1); neox pairs (j, j+nrot/2), otherwise (2j, 2j+1).
func RoPE(x []float64, M, H, D, nrot, pos0 int, base, scale float64, ff []float64, neox bool) []float64 {
	y := append([]float64(nil), x...)
	for i := 0; i < M; i++ {
		for h := 0; h < H; h++ {
			row := y[(i*H+h)*D:]
			for j := 0; j < nrot/2; j++ {
				theta := float64(pos0+i) * scale * math.Pow(base, -2*float64(j)/float64(nrot))
				if ff != nil {
					theta /= ff[j]
				}
				a, b := 2*j, 2*j+1
				if neox {
					a, b = j, j+nrot/2
				}
				c, s := math.Cos(theta), math.Sin(theta)
				x0, x1 := row[a], row[b]
				row[a], row[b] = x0*c-x1*s, x0*s+x1*c
			}
		}
	}
	return y
}

// Attention returns softmax(q·Kᵀ·scale)·V for one query row q[D] over cache
// positions [0, n) of a cache laid out [Hkv][ctx][D], KV head hk.
func Attention(q, kc, vc []float64, hk, ctx, D, n int, scale float64) []float64 {
	s := make([]float64, n)
	mx := math.Inf(-1)
	for t := 0; t < n; t++ {
		var d float64
		for i := 0; i < D; i++ {
			d += q[i] * kc[(hk*ctx+t)*D+i]
		}
		s[t] = d * scale
		mx = math.Max(mx, s[t])
	}
	var sum float64
	for t := range s {
		s[t] = math.Exp(s[t] - mx)
		sum += s[t]
	}
	out := make([]float64, D)
	for t := 0; t < n; t++ {
		for i := 0; i < D; i++ {
			out[i] += s[t] / sum * vc[(hk*ctx+t)*D+i]
		}
	}
	return out
}

// SiLU is x·sigmoid(x).
func SiLU(x float64) float64 { return x / (1 + math.Exp(-x)) }

// GELU is ggml's tanh approximation.
func GELU(x float64) float64 {
	return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*x*(1+0.044715*x*x)))
}

// TopK returns the indices of the k largest x, best first, lower index
// first on ties (the order a stable descending sort gives).
func TopK(x []float64, k int) []int {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] > x[idx[b]] })
	return idx[:k]
}
