package cpu

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
)

// f32Eps is the unit roundoff of float32: one rounding of a result r is
// off by at most f32Eps·|r|.
var f32Eps = math.Ldexp(1, -24)

// testNet builds a small graph whose inputs are rows of random f32 tables
// picked by the step's tokens, loads it on a CPU backend and runs it; the
// output rows come back as the logits (SelectRows of every row).
type testNet struct {
	t   *testing.T
	rng *rand.Rand
	be  *Backend
	g   *compute.Graph
	// vocab is the number of rows of every input table: token ids are
	// below it, and the output is at least this wide.
	vocab int
}

func newTestNet(t *testing.T, seed uint64, threads, b, vocab int) *testNet {
	return &testNet{t: t, rng: rand.New(rand.NewPCG(seed, seed+1)), be: New(threads), g: compute.NewGraph(b, b), vocab: vocab}
}

// randn returns n values σ·N(0,1)+mu, none of them zero.
func (n *testNet) randn(count int, mu, sigma float64) []float32 {
	v := make([]float32, count)
	for i := range v {
		for v[i] == 0 {
			v[i] = float32(mu + sigma*n.rng.NormFloat64())
		}
	}
	return v
}

// weight loads data as an f32 weight [ne0, ne1].
func (n *testNet) weight(data []float32, ne0, ne1 int) *compute.Tensor {
	n.t.Helper()
	w := compute.NewWeight("w", gguf.TypeF32, ne0, ne1)
	raw, err := gguf.Quantize(gguf.TypeF32, data)
	if err != nil {
		n.t.Fatal(err)
	}
	if err := n.be.LoadWeight(w, int64(len(raw)), func(fn func(int64, []byte) error) error { return fn(0, raw) }); err != nil {
		n.t.Fatal(err)
	}
	return w
}

// input returns an activation [width, B] whose row i is row Tokens[i] of
// the returned table (vocab rows of σ·N(0,1)+mu).
func (n *testNet) input(width int, mu, sigma float64) (*compute.Tensor, []float32) {
	table := n.randn(width*n.vocab, mu, sigma)
	return n.g.GetRows(n.weight(table, width, n.vocab)), table
}

// cache allocates a K or V cache of slots positions (a ring if ring).
func (n *testNet) cache(hd, slots, nKV int, ring bool) *compute.Tensor {
	n.t.Helper()
	c := compute.NewCache("c", hd, slots, nKV)
	if ring {
		c = compute.NewRingCache("c", hd, slots, nKV)
	}
	if err := n.be.AllocCache(c); err != nil {
		n.t.Fatal(err)
	}
	return c
}

// compile makes y the output and compiles the graph.
func (n *testNet) compile(y *compute.Tensor) *program {
	n.t.Helper()
	if y.Ne[0] < n.vocab {
		n.t.Fatalf("output width %d below vocabulary %d", y.Ne[0], n.vocab)
	}
	if err := n.g.SetLogits(n.g.SelectRows(y)); err != nil {
		n.t.Fatal(err)
	}
	p, err := n.be.Compile(n.g)
	if err != nil {
		n.t.Fatal(err)
	}
	return p.(*program)
}

// run executes one step at pos0 and returns every row of the output.
func (n *testNet) run(p *program, pos0 int, tokens []int32) []float32 {
	n.t.Helper()
	rows := make([]int32, len(tokens))
	for i := range rows {
		rows[i] = int32(i)
	}
	out := make([]float32, len(tokens)*p.nVocab)
	if err := p.Run(context.Background(), compute.Step{Pos0: pos0, Tokens: tokens, OutRows: rows}, out); err != nil {
		n.t.Fatal(err)
	}
	return out
}

// gelu64 is ggml's GELU in float64.
func gelu64(x float64) float64 {
	return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
}

func silu64(x float64) float64 { return x / (1 + math.Exp(-x)) }

// TestActivationKernels sweeps tanhf, gelu and silu over ±800 (densest
// near 0) against float64. The bounds, a little above what the sweep
// finds (2.3, 2.0, 2.0): tanhf within 4 roundings of tanh relative to
// the value (Cephes' tanhf is quoted at 2 ulp; above 0.625 the exp path
// rounds e^{2x}, +1, the quotient and 1−q). gelu and silu within
// 4·f32Eps·|x|: they are x·σ(z) (z = x or 2u) with z and σ rounded a few
// times, and an error δ in z moves σ by σ(1−σ)·|z|·δ ≤ 0.23·δ; relative
// to the value the error grows without bound where σ underflows
// (x → −∞), so the bound scales with |x|, not with the result.
func TestActivationKernels(t *testing.T) {
	var worstT, worstG, worstS float64
	for i := -200000; i <= 200000; i++ {
		x := float32(i) * 2e-4
		x = x * x * x / 10
		xf := float64(x)
		if x != 0 {
			worstT = max(worstT, math.Abs(float64(tanhf(x))-math.Tanh(xf))/math.Abs(math.Tanh(xf))/f32Eps)
		}
		worstG = max(worstG, math.Abs(float64(gelu(x))-gelu64(xf))/max(math.Abs(xf), 1e-30)/f32Eps)
		worstS = max(worstS, math.Abs(float64(x/(1+expf(-x)))-silu64(xf))/max(math.Abs(xf), 1e-30)/f32Eps)
	}
	if worstT > 4 || worstG > 4 || worstS > 4 {
		t.Errorf("worst errors in f32Eps: tanhf %.2f (relative), gelu %.2f, silu %.2f (·|x|); want ≤ 4", worstT, worstG, worstS)
	}
	// Huge inputs saturate (x³ overflows to ±Inf inside gelu); ±Inf
	// itself gives NaN in gelu as in ggml's formula (−Inf·0).
	for _, x := range []float32{0, 1e30, -1e30} {
		if g, want := gelu(x), float32(math.Max(float64(x), 0)); g != want {
			t.Errorf("gelu(%g) = %g, want %g", x, g, want)
		}
	}
	for _, x := range []float32{0, 1e30, -1e30, float32(math.Inf(1)), float32(math.Inf(-1))} {
		if th := tanhf(x); x != 0 && math.Abs(float64(th)) != 1 || x == 0 && th != 0 {
			t.Errorf("tanhf(%g) = %g", x, th)
		}
	}
}

// TestElementwiseOps runs GLU (SiLU, GELU), Act (SiLU, GELU), Mul, Scale
// and Softcap through a compiled graph on random rows (σ = 3, so GELU's
// and the cap's tails are reached) and checks each element against
// float64 within the rounding of its f32 computation.
func TestElementwiseOps(t *testing.T) {
	const width, b, vocab = 48, 3, 16
	tokens := []int32{5, 11, 2}
	type opCase struct {
		name  string
		build func(g *compute.Graph, a, c *compute.Tensor) *compute.Tensor
		// want and tol give the expected value of element a, c
		want, tol func(a, c float64) float64
	}
	const sc, cp = float32(-0.37), float32(2.5)
	cases := []opCase{
		{"glu_silu", func(g *compute.Graph, a, c *compute.Tensor) *compute.Tensor { return g.GLU(a, c, compute.ActSiLU) },
			func(a, c float64) float64 { return silu64(a) * c },
			// silu within 4·eps·|a| (TestActivationKernels), times c,
			// plus the product's rounding.
			func(a, c float64) float64 { return 5 * f32Eps * math.Abs(a*c) }},
		{"glu_gelu", func(g *compute.Graph, a, c *compute.Tensor) *compute.Tensor { return g.GLU(a, c, compute.ActGELU) },
			func(a, c float64) float64 { return gelu64(a) * c },
			func(a, c float64) float64 { return 5 * f32Eps * math.Abs(a*c) }},
		{"act_silu", func(g *compute.Graph, a, c *compute.Tensor) *compute.Tensor { return g.Act(a, compute.ActSiLU) },
			func(a, c float64) float64 { return silu64(a) },
			func(a, c float64) float64 { return 4 * f32Eps * math.Abs(a) }},
		{"act_gelu", func(g *compute.Graph, a, c *compute.Tensor) *compute.Tensor { return g.Act(a, compute.ActGELU) },
			func(a, c float64) float64 { return gelu64(a) },
			func(a, c float64) float64 { return 4 * f32Eps * math.Abs(a) }},
		// One rounding: correctly rounded products.
		{"mul", func(g *compute.Graph, a, c *compute.Tensor) *compute.Tensor { return g.Mul(a, c) },
			func(a, c float64) float64 { return a * c },
			func(a, c float64) float64 { return f32Eps * math.Abs(a*c) }},
		{"scale", func(g *compute.Graph, a, c *compute.Tensor) *compute.Tensor { return g.Scale(a, sc) },
			func(a, c float64) float64 { return a * float64(sc) },
			func(a, c float64) float64 { return f32Eps * math.Abs(a*float64(sc)) }},
		// x/cap rounded (moves tanh by at most its own relative
		// rounding, since y·tanh'(y) ≤ tanh(y)), tanhf within 4, the
		// product by cap one more.
		{"softcap", func(g *compute.Graph, a, c *compute.Tensor) *compute.Tensor { return g.Softcap(a, cp) },
			func(a, c float64) float64 { return float64(cp) * math.Tanh(a/float64(cp)) },
			func(a, c float64) float64 { return 6 * f32Eps * math.Abs(float64(cp)*math.Tanh(a/float64(cp))) }},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := newTestNet(t, uint64(100+i), 1+i%2, b, vocab)
			a, ta := n.input(width, 0, 3)
			c, tcv := n.input(width, 0, 3)
			p := n.compile(tc.build(n.g, a, c))
			out := n.run(p, 0, tokens)
			for r, tok := range tokens {
				for j := range width {
					av, cv := float64(ta[int(tok)*width+j]), float64(tcv[int(tok)*width+j])
					got, want := float64(out[r*width+j]), tc.want(av, cv)
					if d := math.Abs(got - want); d > tc.tol(av, cv) {
						t.Fatalf("row %d element %d: a %g, c %g: got %g, want %g (|Δ| %g > %g)", r, j, av, cv, got, want, d, tc.tol(av, cv))
					}
				}
			}
		})
	}
}

// TestLayerNorm runs LayerNorm with and without weight and bias, over
// whole rows and per head (Group below the row width), on rows with a
// nonzero mean, against float64: (x−mean)/sqrt(var+eps)·w + b with the
// population variance.
func TestLayerNorm(t *testing.T) {
	const b, vocab = 3, 32
	tokens := []int32{7, 30, 1}
	for i, tc := range []struct {
		width, group int
		w, bias      bool
	}{{64, 64, true, true}, {64, 16, true, false}, {40, 20, false, true}, {33, 33, false, false}} {
		n := newTestNet(t, uint64(200+i), 2, b, vocab)
		x, tx := n.input(tc.width, 0.8, 1.5)
		var w, bias *compute.Tensor
		wv, bv := make([]float32, tc.group), make([]float32, tc.group)
		for j := range wv {
			wv[j], bv[j] = 1, 0
		}
		if tc.w {
			wv = n.randn(tc.group, 0, 1)
			w = n.weight(wv, tc.group, 1)
		}
		if tc.bias {
			bv = n.randn(tc.group, 0, 1)
			bias = n.weight(bv, tc.group, 1)
		}
		const eps = 1e-5
		out := n.run(n.compile(n.g.LayerNorm(x, w, bias, eps, tc.group)), 0, tokens)
		worst := 0.0
		for r, tok := range tokens {
			row := tx[int(tok)*tc.width:][:tc.width]
			for o := 0; o < tc.width; o += tc.group {
				var mean, variance float64
				for _, v := range row[o : o+tc.group] {
					mean += float64(v)
				}
				mean /= float64(tc.group)
				for _, v := range row[o : o+tc.group] {
					variance += (float64(v) - mean) * (float64(v) - mean)
				}
				variance /= float64(tc.group)
				sd := math.Sqrt(variance + eps)
				for j := range tc.group {
					norm := (float64(row[o+j]) - mean) / sd
					want := norm*float64(wv[j]) + float64(bv[j])
					got := float64(out[r*tc.width+o+j])
					// Rounding mean to f32 shifts x−mean by eps·|mean|,
					// i.e. the normalised value by eps·|mean|/sd; x−mean,
					// its square, the variance and the scale round a few
					// times (relative to |norm|, the variance's error
					// halved by the square root); ·w and +b once each.
					tol := f32Eps * ((4*math.Abs(norm)+2*math.Abs(mean)/sd+1)*math.Abs(float64(wv[j])) + 2*(math.Abs(norm*float64(wv[j]))+math.Abs(float64(bv[j]))))
					worst = max(worst, math.Abs(got-want)/tol)
					if d := math.Abs(got - want); d > tol {
						t.Fatalf("%+v: row %d element %d: got %g, want %g (|Δ| %g > %g)", tc, r, o+j, got, want, d, tol)
					}
				}
			}
		}
		t.Logf("%+v: worst |Δ| %.2f of the tolerance", tc, worst)
	}
}

// TestPosRows checks the learned-position lookup against the tables: row
// Pos0+i of an f32 and an f16 table, plus row 0 of the types table, and
// that a step past the table's positions is refused.
func TestPosRows(t *testing.T) {
	const b, vocab, width, nPos = 4, 8, 24, 10
	for _, typ := range []gguf.GGMLType{gguf.TypeF32, gguf.TypeF16} {
		n := newTestNet(t, 77, 1, b, vocab)
		pos := n.randn(width*nPos, 0, 1)
		types := n.randn(width*2, 0, 1)
		w := compute.NewWeight("pos", typ, width, nPos)
		raw, err := gguf.Quantize(typ, pos)
		if err != nil {
			t.Fatal(err)
		}
		if err := n.be.LoadWeight(w, int64(len(raw)), func(fn func(int64, []byte) error) error { return fn(0, raw) }); err != nil {
			t.Fatal(err)
		}
		exact, err := gguf.Dequantize(typ, raw, width*nPos) // the table as stored
		if err != nil {
			t.Fatal(err)
		}
		tok, _ := n.input(width, 0, 1) // GetRows sets the token bound
		y := n.g.Add(n.g.Add(tok, n.g.TypeRows(n.weight(types, width, 2))), n.g.PosRows(w))
		p := n.compile(y)
		tokens := []int32{3, 0, 7}
		const pos0 = 6
		out := n.run(p, pos0, tokens)
		// tok rows are checked elsewhere; recompute them from the table.
		table := n.g.Nodes[0].Src[0]
		tt, _ := gguf.Dequantize(gguf.TypeF32, n.be.weights[table], width*vocab)
		for r, id := range tokens {
			for j := range width {
				want := float64(tt[int(id)*width+j]) + float64(exact[(pos0+r)*width+j]) + float64(types[j])
				got := float64(out[r*width+j])
				if d := math.Abs(got - want); d > 4*f32Eps*(math.Abs(want)+4) {
					t.Fatalf("%v: row %d elem %d: got %g want %g", typ, r, j, got, want)
				}
			}
		}
		err = p.Run(context.Background(), compute.Step{Pos0: nPos - 2, Tokens: tokens, OutRows: []int32{0}}, make([]float32, width*b))
		if !errors.Is(err, compute.ErrBadStep) {
			t.Errorf("%v: step past the learned positions: %v, want ErrBadStep", typ, err)
		}
	}
}
