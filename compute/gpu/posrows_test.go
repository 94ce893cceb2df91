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

// TestPosRowsGraph runs x + types[0] + pos[Pos0+i] (BERT's input
// embedding: TypeRows and PosRows over f16 and f32 tables) in steps of one
// and of five tokens, so that positions come from the step, and compares
// every row with the float64 sum of the dequantized tables.
func TestPosRowsGraph(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	embd := newGWeight(t, r, "embd", gguf.TypeF32, gEmbd, 256, 0.1, 1)
	tokens := []int32{3, 77, 140, 255, 9, 0, 12}
	for _, typ := range []gguf.GGMLType{gguf.TypeF16, gguf.TypeF32} {
		pos := newGWeight(t, r, "pos", typ, gEmbd, 16, 0.1, 1)
		types := newGWeight(t, r, "types", gguf.TypeF32, gEmbd, 2, 0.1, 1)
		for _, b := range []int{1, 5} {
			t.Run(fmt.Sprintf("%v_b%d", typ, b), func(t *testing.T) {
				be := gpu.New(device(t))
				defer be.Close()
				got, _ := graphRun(t, be, b, []*gWeight{embd, pos, types}, tokens, func(g *compute.Graph, x *compute.Tensor) *compute.Tensor {
					return g.Add(g.Add(x, g.TypeRows(types.t)), g.PosRows(pos.t))
				})
				want, tol := make([][]float64, len(tokens)), make([][]float64, len(tokens))
				for i, id := range tokens {
					want[i], tol[i] = make([]float64, gEmbd), make([]float64, gEmbd)
					for j := range gEmbd {
						want[i][j] = embd.v[int(id)*gEmbd+j] + types.v[j] + pos.v[i*gEmbd+j]
						tol[i][j] = 2 * 0x1p-23 * (math.Abs(embd.v[int(id)*gEmbd+j]) + math.Abs(types.v[j]) + math.Abs(pos.v[i*gEmbd+j]))
					}
				}
				judgeRows(t, "pos_rows", got, want, tol)
			})
		}
	}
}
