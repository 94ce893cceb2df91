package gpu_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/gguf"
)

// The graph tests below run small graphs of the element-wise, norm and GLU
// ops on the backend and compare every output with a float64 evaluation of
// the same graph on the weights' dequantized values. The graphs are
// x = embd[tokens] (n_embd 256, 256 rows), then the ops under test, whose
// result rows are the "logits" (n_vocab = 256). A program needs a KV cache:
// each graph also writes x into one and attends over it, an output nobody
// reads.

const gEmbd = 256

// gWeight is a weight of a test graph: its tensor, file bytes and the
// float64 values the bytes decode to.
type gWeight struct {
	t    *compute.Tensor
	data []byte
	v    []float64
}

func newGWeight(t *testing.T, r *rand.Rand, name string, typ gguf.GGMLType, ne0, ne1 int, lo, hi float64) *gWeight {
	t.Helper()
	f := make([]float32, ne0*ne1)
	for i := range f {
		x := lo + r.Float64()*(hi-lo)
		if r.IntN(2) == 0 {
			x = -x
		}
		f[i] = float32(x)
	}
	data, err := gguf.Quantize(typ, f)
	if err != nil {
		t.Fatal(err)
	}
	d, err := gguf.Dequantize(typ, data, len(f))
	if err != nil {
		t.Fatal(err)
	}
	v := make([]float64, len(d))
	for i, x := range d {
		v[i] = float64(x)
	}
	return &gWeight{compute.NewWeight(name, typ, ne0, ne1), data, v}
}

// graphRun compiles the graph that build makes from x on be (loading ws
// first), runs it on tokens (one step of all of them when b > 1, else one
// step a token) and returns each token's result row and the dispatches of
// a step.
func graphRun(t *testing.T, be *gpu.Backend, b int, ws []*gWeight, tokens []int32, build func(g *compute.Graph, x *compute.Tensor) *compute.Tensor) ([][]float32, int) {
	t.Helper()
	for _, w := range ws {
		data := w.data
		if err := be.LoadWeight(w.t, int64(len(data)), func(fn func(int64, []byte) error) error { return fn(0, data) }); err != nil {
			t.Fatal(err)
		}
	}
	const nCtx = 16
	p := compute.AttnParams{NHead: 4, NHeadKV: 4, HeadDim: 64, Scale: 0.125}
	kc, vc := compute.NewCache("k", 64, nCtx, 4), compute.NewCache("v", 64, nCtx, 4)
	for _, c := range []*compute.Tensor{kc, vc} {
		if err := be.AllocCache(c); err != nil {
			t.Fatal(err)
		}
	}
	g := compute.NewGraph(b, b)
	x := g.GetRows(ws[0].t)
	g.KVWrite(x, x, kc, vc, p)
	g.Attention(x, kc, vc, p)
	if err := g.SetLogits(g.SelectRows(build(g, x))); err != nil {
		t.Fatal(err)
	}
	prog, err := be.Compile(g)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var out [][]float32
	for i := 0; i < len(tokens); i += b {
		n := min(b, len(tokens)-i)
		rows := make([]int32, n)
		for j := range rows {
			rows[j] = int32(j)
		}
		logits := make([]float32, n*gEmbd)
		if err := prog.Run(ctx, compute.Step{Pos0: i, Tokens: tokens[i : i+n], OutRows: rows}, logits); err != nil {
			t.Fatal(err)
		}
		for j := range n {
			out = append(out, logits[j*gEmbd:(j+1)*gEmbd])
		}
	}
	return out, prog.(gpu.Sampler).Dispatches()
}

// judgeRows compares got (rows of the graph's result) with want, row by
// row, within tol.
func judgeRows(t *testing.T, what string, got [][]float32, want, tol [][]float64) {
	t.Helper()
	for r := range want {
		bad := 0
		for i, w := range want[r] {
			if e := math.Abs(float64(got[r][i]) - w); !(e <= tol[r][i]) {
				if bad < 3 {
					t.Errorf("%s: row %d [%d] = %g, want %g (tolerance %.3g)", what, r, i, got[r][i], w, tol[r][i])
				}
				bad++
			}
		}
		if bad > 0 {
			t.Errorf("%s: row %d: %d of %d out of tolerance", what, r, bad, len(want[r]))
		}
	}
}

func gelu64(x float64) float64 {
	return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*x*(1+0.044715*x*x)))
}

func silu64(x float64) float64 { return x / (1 + math.Exp(-x)) }

// eltCase is a graph of element-wise or norm ops and its float64
// evaluation on one row x (with its tolerance).
type eltCase struct {
	name  string
	build func(g *compute.Graph, x *compute.Tensor) *compute.Tensor
	ref   func(x []float64) (y, tol []float64)
}

// TestEltwiseOpsMatchFloat64 lowers Act (SiLU, GELU), Mul, Scale, Softcap,
// LayerNorm (with weight and bias over whole rows; over groups of 32 with a
// weight; over groups of 16 with neither) and an unfused GLU (SiLU, GELU:
// its operands are no MatMuls) and checks every result against float64, at
// decode (one row a step) and prefill (5 rows).
func TestEltwiseOpsMatchFloat64(t *testing.T) {
	r := rand.New(rand.NewPCG(rand.Uint64(), 7))
	embd := newGWeight(t, r, "embd", gguf.TypeF32, gEmbd, gEmbd, 0.01, 3)
	lw := newGWeight(t, r, "ln.weight", gguf.TypeF32, gEmbd, 1, 0.5, 1.5)
	lb := newGWeight(t, r, "ln.bias", gguf.TypeF32, gEmbd, 1, 0.1, 1)
	lw32 := newGWeight(t, r, "ln32.weight", gguf.TypeF16, 32, 1, 0.5, 1.5)
	rel := func(y []float64, rel, abs float64) []float64 {
		tol := make([]float64, len(y))
		for i, v := range y {
			tol[i] = rel*math.Abs(v) + abs
		}
		return tol
	}
	unary := func(f func(float64) float64, r float64) func(x []float64) ([]float64, []float64) {
		return func(x []float64) ([]float64, []float64) {
			y := make([]float64, len(x))
			for i, v := range x {
				y[i] = f(v)
			}
			return y, rel(y, r, 1e-6)
		}
	}
	layerNorm := func(x, w, b []float64, group int) ([]float64, []float64) {
		y, tol := make([]float64, len(x)), make([]float64, len(x))
		for o := 0; o < len(x); o += group {
			var mean, v float64
			for _, e := range x[o : o+group] {
				mean += e
			}
			mean /= float64(group)
			for _, e := range x[o : o+group] {
				v += (e - mean) * (e - mean)
			}
			inv := 1 / math.Sqrt(v/float64(group)+1e-5)
			for i := range group {
				wi, bi := 1.0, 0.0
				if w != nil {
					wi = w[i]
				}
				if b != nil {
					bi = b[i]
				}
				y[o+i] = (x[o+i]-mean)*inv*wi + bi
				tol[o+i] = 1e-5*(math.Abs(x[o+i]-mean)+3)*inv*math.Abs(wi) + 1e-5*math.Abs(y[o+i]) + 1e-6
			}
		}
		return y, tol
	}
	cases := []eltCase{
		{"act_silu", func(g *compute.Graph, x *compute.Tensor) *compute.Tensor { return g.Act(x, compute.ActSiLU) }, unary(silu64, 1e-5)},
		{"act_gelu", func(g *compute.Graph, x *compute.Tensor) *compute.Tensor { return g.Act(x, compute.ActGELU) }, unary(gelu64, 1e-5)},
		{"scale", func(g *compute.Graph, x *compute.Tensor) *compute.Tensor { return g.Scale(x, 16) }, unary(func(v float64) float64 { return 16 * v }, 1e-7)},
		{"mul", func(g *compute.Graph, x *compute.Tensor) *compute.Tensor { return g.Mul(x, g.Scale(x, -0.75)) },
			unary(func(v float64) float64 { return -0.75 * v * v }, 1e-6)},
		{"softcap", func(g *compute.Graph, x *compute.Tensor) *compute.Tensor { return g.Softcap(g.Scale(x, 4), 5) },
			func(x []float64) ([]float64, []float64) {
				y := make([]float64, len(x))
				for i, v := range x {
					y[i] = 5 * math.Tanh(float64(float32(4*v))/5)
				}
				return y, rel(y, 1e-5, 5e-6)
			}},
		{"glu_silu", func(g *compute.Graph, x *compute.Tensor) *compute.Tensor {
			return g.GLU(g.Scale(x, 2), x, compute.ActSiLU)
		},
			unary(func(v float64) float64 { return silu64(2*v) * v }, 1e-5)},
		{"glu_gelu", func(g *compute.Graph, x *compute.Tensor) *compute.Tensor {
			return g.GLU(g.Scale(x, 2), x, compute.ActGELU)
		},
			unary(func(v float64) float64 { return gelu64(2*v) * v }, 1e-5)},
		{"layer_norm", func(g *compute.Graph, x *compute.Tensor) *compute.Tensor {
			return g.LayerNorm(x, lw.t, lb.t, 1e-5, gEmbd)
		},
			func(x []float64) ([]float64, []float64) { return layerNorm(x, lw.v, lb.v, gEmbd) }},
		{"layer_norm_g32_w", func(g *compute.Graph, x *compute.Tensor) *compute.Tensor {
			return g.LayerNorm(x, lw32.t, nil, 1e-5, 32)
		},
			func(x []float64) ([]float64, []float64) { return layerNorm(x, lw32.v, nil, 32) }},
		{"layer_norm_g16", func(g *compute.Graph, x *compute.Tensor) *compute.Tensor { return g.LayerNorm(x, nil, nil, 1e-5, 16) },
			func(x []float64) ([]float64, []float64) { return layerNorm(x, nil, nil, 16) }},
	}
	tokens := []int32{3, 77, 140, 255, 9}
	for _, c := range cases {
		for _, b := range []int{1, 5} {
			t.Run(fmt.Sprintf("%s_b%d", c.name, b), func(t *testing.T) {
				be := gpu.New(device(t))
				defer be.Close()
				got, _ := graphRun(t, be, b, []*gWeight{embd, lw, lb, lw32}, tokens, c.build)
				want, tol := make([][]float64, len(tokens)), make([][]float64, len(tokens))
				for i, id := range tokens {
					want[i], tol[i] = c.ref(embd.v[int(id)*gEmbd : int(id+1)*gEmbd])
				}
				judgeRows(t, c.name, got, want, tol)
			})
		}
	}
}

// ffnRef is the float64 FFN down·act(gate·h)⊙(up·h), h = RMSNorm(x)·nw,
// with a tolerance from the f32 error budget of each stage (1e-5 of the
// magnitudes of the dot products, through the activation's slope).
func ffnRef(x, nw, gate, up, down []float64, nff int, act compute.ActFunc) (y, tol []float64) {
	n := len(x)
	var ss float64
	for _, v := range x {
		ss += v * v
	}
	inv := 1 / math.Sqrt(ss/float64(n)+1e-5)
	h := make([]float64, n)
	for i, v := range x {
		h[i] = v * inv * nw[i]
	}
	a, errA := make([]float64, nff), make([]float64, nff)
	for j := range nff {
		var gv, gm, uv, um float64
		for k := range n {
			gv += gate[j*n+k] * h[k]
			gm += math.Abs(gate[j*n+k] * h[k])
			uv += up[j*n+k] * h[k]
			um += math.Abs(up[j*n+k] * h[k])
		}
		f, slope := silu64(gv), 1.1
		if act == compute.ActGELU {
			f, slope = gelu64(gv), 1.13
		}
		a[j] = f * uv
		errA[j] = 1e-5 * (slope*gm*math.Abs(uv) + math.Abs(f)*um + math.Abs(a[j]))
	}
	y, tol = make([]float64, n), make([]float64, n)
	for i := range n {
		var m, e float64
		for j := range nff {
			y[i] += down[i*nff+j] * a[j]
			m += math.Abs(down[i*nff+j] * a[j])
			e += math.Abs(down[i*nff+j]) * errA[j]
		}
		tol[i] = 4*(e+1e-5*m) + 1e-5
	}
	return y, tol
}

// TestGeGLUFFNMatchesFloat64 runs an FFN down·act(gate·h)⊙(up·h) with h an
// RMSNorm of x, as Gemma 3 (GELU) and llama (SiLU) build it, for f32, f16,
// q8_0, q4_0 and q4_K matrices, at decode (the SwiGLU matvec with the norm
// fused, plain formats only with ForcePlainNorm) and prefill (the SwiGLU
// matmul), with whole weights and with weights split by rows (smallLimits:
// the matvec part by part; the prefill's gate and up as split matmuls,
// then gelu_mul). Every output is judged against float64, and the GeGLU
// program must dispatch exactly as many kernels as the SwiGLU one (the
// same fusions).
func TestGeGLUFFNMatchesFloat64(t *testing.T) {
	r := rand.New(rand.NewPCG(rand.Uint64(), 11))
	const nff = 512
	tokens := []int32{3, 77, 140, 255, 9, 31}
	for _, typ := range []gguf.GGMLType{gguf.TypeF32, gguf.TypeF16, gguf.TypeQ8_0, gguf.TypeQ4_0, gguf.TypeQ4_K} {
		embd := newGWeight(t, r, "embd", gguf.TypeF32, gEmbd, gEmbd, 0.05, 2)
		nw := newGWeight(t, r, "ffn_norm", gguf.TypeF32, gEmbd, 1, 0.5, 1.5)
		gate := newGWeight(t, r, "gate", typ, gEmbd, nff, 0.01, 0.12)
		up := newGWeight(t, r, "up", typ, gEmbd, nff, 0.01, 0.12)
		down := newGWeight(t, r, "down", typ, nff, gEmbd, 0.01, 0.08)
		ws := []*gWeight{embd, nw, gate, up, down}
		for _, split := range []bool{false, true} {
			for _, b := range []int{1, 4} {
				disp := map[compute.ActFunc]int{}
				for _, act := range []compute.ActFunc{compute.ActSiLU, compute.ActGELU} {
					t.Run(fmt.Sprintf("%s_split=%v_b%d_%s", typ, split, b, act), func(t *testing.T) {
						if typ.BlockSize() == 1 {
							gpu.ForcePlainNorm(true) // the norm in the plain matvec too
							defer gpu.ForcePlainNorm(false)
						}
						be := gpu.New(device(t))
						defer be.Close()
						if split {
							lim := smallLimits
							if typ == gguf.TypeF32 { // 2 KiB rows of down: 64-row steps at a 256-byte alignment
								lim = gpu.WeightLimits{MaxBuffer: 1 << 20, MaxBinding: 256 << 10, Align: 256}
							}
							if err := be.SetWeightLimits(lim); err != nil {
								t.Fatal(err)
							}
						}
						got, d := graphRun(t, be, b, ws, tokens, func(g *compute.Graph, x *compute.Tensor) *compute.Tensor {
							h := g.RMSNorm(x, nw.t, 1e-5, gEmbd)
							return g.MatMul(down.t, g.GLU(g.MatMul(gate.t, h, nil), g.MatMul(up.t, h, nil), act), nil)
						})
						if split {
							if wp := be.WeightPlacement(); wp.Split["gate"] < 2 {
								t.Fatalf("gate in %d parts, want a split weight (placement %+v)", wp.Split["gate"], wp)
							}
						}
						disp[act] = d
						t.Logf("%d dispatches a step", d)
						want, tol := make([][]float64, len(tokens)), make([][]float64, len(tokens))
						for i, id := range tokens {
							want[i], tol[i] = ffnRef(embd.v[int(id)*gEmbd:int(id+1)*gEmbd], nw.v, gate.v, up.v, down.v, nff, act)
						}
						judgeRows(t, act.String(), got, want, tol)
					})
				}
				if disp[compute.ActSiLU] != disp[compute.ActGELU] {
					t.Errorf("%s split=%v b=%d: %d dispatches for GeGLU, %d for SwiGLU: want the same fusions", typ, split, b, disp[compute.ActGELU], disp[compute.ActSiLU])
				}
			}
		}
	}
}
