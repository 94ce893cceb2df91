package gpu

import (
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
)

// planNormFusions fuses a one-row, whole-row RMSNorm only into a kernel
// that it feeds alone: the QKV, SwiGLU, residual and plain matvecs of any
// weight format (plain-format matvecs only on hardware adapters), never a
// norm whose output something else reads too, a per-head norm, or a
// multi-row one.
// (Whether the fused kernels compute the right values is judged by the
// conformance suite against llama.cpp and by the shaders package against
// float64.)
func TestPlanNormFusions(t *testing.T) {
	const k = 64
	w := func(name string, typ gguf.GGMLType, rows int) *compute.Tensor {
		return compute.NewWeight(name, typ, k, rows)
	}
	g := compute.NewGraph(1, 1)
	x := g.GetRows(w("embd", gguf.TypeQ8_0, 50))
	nw := w("norm", gguf.TypeF32, 1)

	// QKV with mixed formats, plain ones included: fused.
	nQKV := g.RMSNorm(x, nw, 1e-5, k)
	q := g.MatMul(w("q", gguf.TypeF16, k), nQKV, nil)
	g.MatMul(w("k", gguf.TypeQ8_0, 32), nQKV, nil)
	g.MatMul(w("v", gguf.TypeQ4_K, 32), nQKV, nil)
	// SwiGLU in q4_0: fused.
	nFF := g.RMSNorm(q, nil, 1e-5, k)
	h := g.SiluMul(g.MatMul(w("gate", gguf.TypeQ4_0, k), nFF, nil), g.MatMul(w("up", gguf.TypeQ4_0, k), nFF, nil))
	// Residual matvec in q6_K: fused.
	nRes := g.RMSNorm(h, nw, 1e-5, k)
	r := g.Add(g.MatMul(w("o", gguf.TypeQ6_K, k), nRes, nil), h)
	// Plain f16 matvec: fused (matvec_plain's Norm variant).
	nPlain := g.RMSNorm(r, nw, 1e-5, k)
	p := g.MatMul(w("f16", gguf.TypeF16, k), nPlain, nil)
	// Output also read by an Add: not fused.
	nShared := g.RMSNorm(p, nw, 1e-5, k)
	s := g.Add(g.MatMul(w("s", gguf.TypeQ8_0, k), nShared, nil), nShared)
	// Per-head norm (group 32 of 64): not fused.
	nHead := g.RMSNorm(s, nil, 1e-5, 32)
	out := g.MatMul(w("out", gguf.TypeQ8_0, 50), g.SelectRows(nHead), nil)
	if err := g.SetLogits(out); err != nil {
		t.Fatal(err)
	}
	if err := g.Err(); err != nil {
		t.Fatal(err)
	}
	f := planFusions(g, true, gguf.TypeF16, true)
	fused := map[*compute.Tensor]bool{}
	for m, nn := range f.norm {
		fused[nn.Dst] = true
		if f.by[nn] == nil {
			t.Errorf("norm fused into %s has no position", m.Dst.Name)
		}
	}
	for _, c := range []struct {
		name string
		t    *compute.Tensor
		want bool
	}{{"qkv", nQKV, true}, {"swiglu", nFF, true}, {"residual", nRes, true}, {"plain f16", nPlain, true},
		{"shared output", nShared, false}, {"per-head", nHead, false}} {
		if fused[c.t] != c.want {
			t.Errorf("%s norm: fused %v, want %v", c.name, fused[c.t], c.want)
		}
	}
	// Software adapters (plainNorm false): the plain f16 matvec keeps its
	// norm, the block-format and QKV fusions stay.
	fs := planFusions(g, false, gguf.TypeF16, true)
	for _, c := range []struct {
		name string
		t    *compute.Tensor
		want bool
	}{{"qkv", nQKV, true}, {"swiglu", nFF, true}, {"residual", nRes, true}, {"plain f16", nPlain, false}} {
		got := false
		for _, nn := range fs.norm {
			got = got || nn.Dst == c.t
		}
		if got != c.want {
			t.Errorf("plainNorm false, %s norm: fused %v, want %v", c.name, got, c.want)
		}
	}

	// Two rows (prefill): nothing is fused.
	g2 := compute.NewGraph(2, 2)
	x2 := g2.GetRows(w("embd", gguf.TypeQ8_0, 50))
	o2 := g2.MatMul(w("out", gguf.TypeQ8_0, 50), g2.RMSNorm(g2.SelectRows(x2), nw, 1e-5, k), nil)
	if err := g2.SetLogits(o2); err != nil {
		t.Fatal(err)
	}
	if f2 := planFusions(g2, true, gguf.TypeF16, true); len(f2.norm) != 0 {
		t.Errorf("prefill graph: %d norms fused, want 0", len(f2.norm))
	}
}
