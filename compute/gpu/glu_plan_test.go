package gpu

import (
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
)

// planFusions fuses a GeGLU FFN (GLU with GELU) exactly as a SwiGLU one:
// the gate and up MatMuls into the GLU (one SwiGLU matvec or matmul, the
// activation in the kernel's key) and, on one row, the FFN's RMSNorm into
// that kernel, here in a Gemma 3 layer's shape (scaled embeddings, a
// post-FFN norm before the residual add).
func TestPlanGeGLUFusions(t *testing.T) {
	const k = 256
	for _, b := range []int{1, 4} {
		for _, typ := range []gguf.GGMLType{gguf.TypeQ4_K, gguf.TypeF16} {
			plans := map[compute.ActFunc][2]int{}
			for _, act := range []compute.ActFunc{compute.ActSiLU, compute.ActGELU} {
				g := compute.NewGraph(b, 1)
				w := func(name string, rows int) *compute.Tensor { return compute.NewWeight(name, typ, k, rows) }
				nw := compute.NewWeight("norm", gguf.TypeF32, k, 1)
				x := g.Scale(g.GetRows(w("embd", 50)), 16)
				h := g.RMSNorm(x, nw, 1e-6, k)
				gate, up := g.MatMul(w("gate", 512), h, nil), g.MatMul(w("up", 512), h, nil)
				glu := g.GLU(gate, up, act)
				down := g.MatMul(compute.NewWeight("down", typ, 512, k), glu, nil)
				x = g.Add(x, g.RMSNorm(down, nw, 1e-6, k))
				if err := g.SetLogits(g.MatMul(w("out", 50), g.SelectRows(x), nil)); err != nil {
					t.Fatal(err)
				}
				f := planFusions(g, true, gguf.TypeF16, true)
				var gluNode, gateNode, normNode *compute.Node
				for _, n := range g.Nodes {
					switch n.Dst {
					case glu:
						gluNode = n
					case gate:
						gateNode = n
					case h:
						normNode = n
					}
				}
				gu, ok := f.swiglu[gluNode]
				if !ok || gu[0] != gateNode || gu[1].Dst != up || f.by[gateNode] != gluNode {
					t.Errorf("b=%d %s %s: GLU not fused with its gate and up MatMuls", b, typ, act)
				}
				if fused := f.norm[gateNode] == normNode; fused != (b == 1) {
					t.Errorf("b=%d %s %s: FFN norm fused %v, want %v", b, typ, act, fused, b == 1)
				}
				plans[act] = [2]int{len(f.swiglu), len(f.norm)}
			}
			if plans[compute.ActSiLU] != plans[compute.ActGELU] {
				t.Errorf("b=%d %s: SwiGLU plan %v, GeGLU %v", b, typ, plans[compute.ActSiLU], plans[compute.ActGELU])
			}
		}
	}
}
