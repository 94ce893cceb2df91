package compute_test

import (
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
)

// toyGraph builds a two-layer-like graph with residuals, so that many
// activations die while others stay live across several nodes.
func toyGraph(t *testing.T, b int) *compute.Graph {
	t.Helper()
	g := compute.NewGraph(b, b)
	emb := compute.NewWeight("token_embd.weight", gguf.TypeF32, 64, 100)
	norm := compute.NewWeight("norm.weight", gguf.TypeF32, 64, 1)
	up := compute.NewWeight("up.weight", gguf.TypeQ8_0, 64, 128)
	down := compute.NewWeight("down.weight", gguf.TypeQ8_0, 128, 64)
	kc, vc := compute.NewCache("k", 16, 32, 2), compute.NewCache("v", 16, 32, 2)
	ap := compute.AttnParams{NHead: 4, NHeadKV: 2, HeadDim: 16, Scale: 0.25}
	x := g.GetRows(emb)
	for range 3 {
		h := g.RMSNorm(x, norm, 1e-5, 64)
		k := g.MatMul(compute.NewWeight("k.weight", gguf.TypeF32, 64, 32), h, nil)
		g.KVWrite(k, k, kc, vc, ap)
		x = g.Add(x, g.Attention(h, kc, vc, ap))
		x = g.Add(x, g.MatMul(down, g.SiluMul(g.MatMul(up, h, nil), g.MatMul(up, h, nil)), nil))
	}
	if err := g.SetLogits(g.MatMul(emb, g.SelectRows(x), nil)); err != nil {
		t.Fatal(err)
	}
	return g
}

// TestPlanNeverOverlapsLiveTensors checks the memory plan: while a tensor
// may still be read, no other tensor is written into its range.
func TestPlanNeverOverlapsLiveTensors(t *testing.T) {
	g := toyGraph(t, 8)
	lastUse := map[*compute.Tensor]int{g.Logits: len(g.Nodes)}
	for i, n := range g.Nodes {
		for _, s := range n.Src {
			if s != nil && s.Kind == compute.Activation {
				lastUse[s] = i
			}
		}
	}
	born := map[*compute.Tensor]bool{}
	total := 0
	for i, n := range g.Nodes {
		if n.Dst == nil {
			continue
		}
		born[n.Dst] = true
		total += n.Dst.Elems()
		d := n.Dst
		if d.Offset < 0 || d.Offset+d.Elems() > g.ArenaSize || d.Offset%64 != 0 {
			t.Fatalf("node %d %s: offset %d size %d outside arena %d or unaligned", i, n.Op, d.Offset, d.Elems(), g.ArenaSize)
		}
		for o := range born {
			if o == d || lastUse[o] < i {
				continue
			}
			if d.Offset < o.Offset+o.Elems() && o.Offset < d.Offset+d.Elems() {
				t.Fatalf("node %d %s output [%d,+%d) overlaps live %s [%d,+%d)", i, n.Op, d.Offset, d.Elems(), o.Name, o.Offset, o.Elems())
			}
		}
	}
	if g.ArenaSize >= total {
		t.Errorf("arena %d floats reuses nothing (sum of activations %d)", g.ArenaSize, total)
	}
}

func TestGraphShapeErrorsStick(t *testing.T) {
	g := compute.NewGraph(4, 4)
	w := compute.NewWeight("w.weight", gguf.TypeF32, 32, 16)
	x := g.GetRows(compute.NewWeight("e.weight", gguf.TypeF32, 64, 10))
	y := g.MatMul(w, x, nil) // 32 ≠ 64
	g.Add(y, y)
	if err := g.SetLogits(y); err == nil {
		t.Fatal("mismatched matmul accepted")
	}
	if compute.NewGraph(0, 1).Err() == nil || compute.NewGraph(4, 5).Err() == nil {
		t.Error("micro-batch 0 accepted")
	}
}
