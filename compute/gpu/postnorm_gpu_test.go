package gpu_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/gguf"
)

// TestPostNormAddMatchesFloat64 runs post-norm residual adds, x +
// RMSNorm(y)·w as Gemma 3 ends each block, against float64 at decode (one
// row a step) and prefill (5 rows): the residual first and second, with
// and without a norm weight (each one rms_norm with Key.PostAdd: the
// program dispatches as many kernels as with the bare norm), and a norm
// that something else reads too (unfused: rms_norm, then the adds).
func TestPostNormAddMatchesFloat64(t *testing.T) {
	r := rand.New(rand.NewPCG(rand.Uint64(), 13))
	embd := newGWeight(t, r, "embd", gguf.TypeF32, gEmbd, gEmbd, 0.01, 3)
	nw := newGWeight(t, r, "post_norm.weight", gguf.TypeF32, gEmbd, 1, 0.5, 1.5)
	// norm returns RMSNorm(3·x)·w (w nil: 1) and its tolerance.
	norm := func(x, w []float64) (y, tol []float64) {
		var ss float64
		for _, v := range x {
			ss += 9 * v * v
		}
		inv := 1 / math.Sqrt(ss/float64(len(x))+1e-6)
		y, tol = make([]float64, len(x)), make([]float64, len(x))
		for i, v := range x {
			wi := 1.0
			if w != nil {
				wi = w[i]
			}
			y[i] = 3 * v * inv * wi
			tol[i] = 1e-5*math.Abs(y[i]) + 1e-6
		}
		return y, tol
	}
	add := func(w []float64, times float64) func(x []float64) ([]float64, []float64) {
		return func(x []float64) ([]float64, []float64) {
			y, tol := norm(x, w)
			for i, v := range x {
				y[i] = v + times*y[i]
				tol[i] = times*tol[i] + 1e-7*(math.Abs(v)+math.Abs(y[i]))
			}
			return y, tol
		}
	}
	cases := []struct {
		eltCase
		fused bool
	}{
		{eltCase{"x+norm", func(g *compute.Graph, x *compute.Tensor) *compute.Tensor {
			return g.Add(x, g.RMSNorm(g.Scale(x, 3), nw.t, 1e-6, gEmbd))
		}, add(nw.v, 1)}, true},
		{eltCase{"norm+x", func(g *compute.Graph, x *compute.Tensor) *compute.Tensor {
			return g.Add(g.RMSNorm(g.Scale(x, 3), nw.t, 1e-6, gEmbd), x)
		}, add(nw.v, 1)}, true},
		{eltCase{"x+norm_noweight", func(g *compute.Graph, x *compute.Tensor) *compute.Tensor {
			return g.Add(x, g.RMSNorm(g.Scale(x, 3), nil, 1e-6, gEmbd))
		}, add(nil, 1)}, true},
		{eltCase{"shared", func(g *compute.Graph, x *compute.Tensor) *compute.Tensor {
			n := g.RMSNorm(g.Scale(x, 3), nw.t, 1e-6, gEmbd)
			return g.Add(g.Add(x, n), n)
		}, add(nw.v, 2)}, false},
	}
	tokens := []int32{3, 77, 140, 255, 9}
	for _, c := range cases {
		for _, b := range []int{1, 5} {
			t.Run(fmt.Sprintf("%s_b%d", c.name, b), func(t *testing.T) {
				be := gpu.New(device(t))
				defer be.Close()
				ws := []*gWeight{embd, nw}
				got, d := graphRun(t, be, b, ws, tokens, c.build)
				want, tol := make([][]float64, len(tokens)), make([][]float64, len(tokens))
				for i, id := range tokens {
					want[i], tol[i] = c.ref(embd.v[int(id)*gEmbd : int(id+1)*gEmbd])
				}
				judgeRows(t, c.name, got, want, tol)
				// The bare norm's program: as many dispatches when fused,
				// the adds' more when not.
				bare := gpu.New(device(t))
				defer bare.Close()
				_, dn := graphRun(t, bare, b, ws, tokens[:b], func(g *compute.Graph, x *compute.Tensor) *compute.Tensor {
					return g.RMSNorm(g.Scale(x, 3), nw.t, 1e-6, gEmbd)
				})
				if wantD := map[bool]int{true: dn, false: dn + 2}[c.fused]; d != wantD {
					t.Errorf("%d dispatches a step, want %d (the bare norm's %d)", d, wantD, dn)
				}
			})
		}
	}
}
