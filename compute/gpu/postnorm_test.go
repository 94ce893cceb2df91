package gpu

import (
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
)

// planPostNorms fuses Add(r, RMSNorm(y)) in either operand order, at
// decode and prefill, when the norm covers whole rows and only the Add
// reads it; not a norm read twice (by the Add and a MatMul, or as both
// operands of the Add), a per-head norm, or an Add that the residual
// epilogue already takes. The pre-norm fusion keeps its norms, and no norm
// is claimed twice.
func TestPlanPostNorms(t *testing.T) {
	const k = 64
	for _, b := range []int{1, 4} {
		w := func(name string, rows int) *compute.Tensor { return compute.NewWeight(name, gguf.TypeQ8_0, k, rows) }
		nw := compute.NewWeight("norm", gguf.TypeF32, k, 1)
		g := compute.NewGraph(b, 1)
		x := g.GetRows(w("embd", 50))

		// Gemma's attention block: pre-norm into a matvec, post-norm
		// before the residual add (r first).
		pre := g.RMSNorm(x, nw, 1e-6, k)
		post := g.RMSNorm(g.MatMul(w("o", k), pre, nil), nw, 1e-6, k)
		x1 := g.Add(x, post)
		// The other operand order, without a norm weight.
		swapped := g.RMSNorm(g.MatMul(w("down", k), x1, nil), nil, 1e-6, k)
		x2 := g.Add(swapped, x1)
		// Read by the Add and by a MatMul: not fused.
		shared := g.RMSNorm(g.MatMul(w("s", k), x2, nil), nw, 1e-6, k)
		x3 := g.Add(x2, shared)
		x3 = g.Add(x3, g.MatMul(w("t", k), shared, nil))
		// Both operands of one Add: not fused.
		twice := g.RMSNorm(x3, nw, 1e-6, k)
		x4 := g.Add(twice, twice)
		// Per-head (group 32 of 64): not fused.
		head := g.RMSNorm(g.MatMul(w("h", k), x4, nil), nil, 1e-6, 32)
		x5 := g.Add(x4, head)
		// Add(MatMul, RMSNorm): the residual epilogue takes the Add, the
		// norm runs on its own.
		resid := g.RMSNorm(x5, nw, 1e-6, k)
		x6 := g.Add(g.MatMul(w("r", k), x5, nil), resid)
		if err := g.SetLogits(g.MatMul(w("out", 50), g.SelectRows(x6), nil)); err != nil {
			t.Fatal(err)
		}
		if err := g.Err(); err != nil {
			t.Fatal(err)
		}
		f := planFusions(g, true, gguf.TypeF16, true)
		node := map[*compute.Tensor]*compute.Node{}
		for _, n := range g.Nodes {
			node[n.Dst] = n
		}
		for _, c := range []struct {
			name      string
			norm, sum *compute.Tensor
			want      bool
		}{{"r + norm", post, x1, true}, {"norm + r", swapped, x2, true}, {"shared output", shared, x3, false},
			{"both operands", twice, x4, false}, {"per-head", head, x5, false}, {"residual epilogue", resid, x6, false}} {
			add, nn := node[c.sum], node[c.norm]
			got := f.postNorm[add] == nn
			if got != c.want {
				t.Errorf("b=%d %s: fused %v, want %v", b, c.name, got, c.want)
			}
			if got && f.by[nn] != add {
				t.Errorf("b=%d %s: norm runs at %v, want its Add", b, c.name, f.by[nn])
			}
			if !got && f.by[nn] != nil && f.postNorm[add] != nil {
				t.Errorf("b=%d %s: Add fused with another norm", b, c.name)
			}
		}
		if len(f.postNorm) != 2 {
			t.Errorf("b=%d: %d post-norm fusions, want 2", b, len(f.postNorm))
		}
		if _, ok := f.residual[node[x6]]; !ok {
			t.Errorf("b=%d: Add(MatMul, RMSNorm) lost its residual epilogue", b)
		}
		// The pre-norm fusion (one row only) keeps the attention norm; no
		// norm is absorbed twice.
		if fused := normOf(f, node[pre]); fused != (b == 1) {
			t.Errorf("b=%d: pre-norm fused %v, want %v", b, fused, b == 1)
		}
		for _, nn := range f.norm {
			for _, pn := range f.postNorm {
				if nn == pn {
					t.Errorf("b=%d: norm %s claimed by both fusions", b, nn.Dst.Name)
				}
			}
		}
	}
}

// normOf reports whether f's pre-norm fusion absorbs nn.
func normOf(f fusions, nn *compute.Node) bool {
	for _, n := range f.norm {
		if n == nn {
			return true
		}
	}
	return false
}

// Gemma 3's decode graph: each layer's post-attention and post-FFN norms
// fuse into their residual adds, and neither takes a norm that the
// pre-norm fusion (into matvec_qkv and the GeGLU matvec) wants.
func TestPlanPostNormsGemmaLayer(t *testing.T) {
	const k, nff = 256, 512
	typ := gguf.TypeQ4_K
	g := compute.NewGraph(1, 1)
	w := func(name string, in, out int) *compute.Tensor { return compute.NewWeight(name, typ, in, out) }
	nw := compute.NewWeight("norm", gguf.TypeF32, k, 1)
	x := g.Scale(g.GetRows(w("embd", k, 50)), 16)
	const layers = 3
	for range layers {
		h := g.RMSNorm(x, nw, 1e-6, k)
		a := g.Add(g.MatMul(w("q", k, k), h, nil), g.Add(g.MatMul(w("k", k, k), h, nil), g.MatMul(w("v", k, k), h, nil)))
		x = g.Add(x, g.RMSNorm(g.MatMul(w("o", k, k), a, nil), nw, 1e-6, k))
		h = g.RMSNorm(x, nw, 1e-6, k)
		glu := g.GLU(g.MatMul(w("gate", k, nff), h, nil), g.MatMul(w("up", k, nff), h, nil), compute.ActGELU)
		x = g.Add(x, g.RMSNorm(g.MatMul(w("down", nff, k), glu, nil), nw, 1e-6, k))
	}
	if err := g.SetLogits(g.MatMul(w("out", k, 50), g.RMSNorm(g.SelectRows(x), nw, 1e-6, k), nil)); err != nil {
		t.Fatal(err)
	}
	f := planFusions(g, true, gguf.TypeF16, true)
	if len(f.postNorm) != 2*layers {
		t.Errorf("%d post-norm fusions, want %d", len(f.postNorm), 2*layers)
	}
	// Pre-norms: attention (QKV) and FFN (GeGLU) each layer, and the
	// output norm into the lm head.
	if len(f.norm) != 2*layers+1 {
		t.Errorf("%d pre-norm fusions, want %d", len(f.norm), 2*layers+1)
	}
	if len(f.residual) != 0 {
		t.Errorf("%d residual epilogues, want 0", len(f.residual))
	}
}
