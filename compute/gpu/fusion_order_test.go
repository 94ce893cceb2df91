package gpu_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/engine/enginetest"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
)

// llamaInterleaved builds tiny-llama's graph as model.Llama does, but with
// unrelated nodes between the members of every fusion group and the
// residual and FFN operands swapped: fusions are found by pattern, so the
// same groups must form and the logits must not change.
func llamaInterleaved(g *compute.Graph, m *model.Llama, kv *model.KVCache) error {
	c := m.Config()
	x := g.GetRows(m.TokenEmbd)
	noise := func() { g.Scale(x, 2) } // a node nothing reads
	for il, l := range m.Layers {
		lc := c.Layers[il]
		ap := compute.AttnParams{NHead: c.NHead, NHeadKV: c.NHeadKV, HeadDim: c.HeadDim, Scale: lc.AttnScale}
		rp := func(n int) compute.RopeParams {
			return compute.RopeParams{Mode: c.RopeMode, NHeads: n, HeadDim: c.HeadDim, NRot: c.NRot, Base: lc.RopeBase, Scale: lc.RopeScale}
		}
		h := g.RMSNorm(x, l.AttnNorm, c.Eps, c.NEmbd)
		q := g.MatMul(l.Q, h, nil)
		noise()
		k := g.MatMul(l.K, h, nil)
		noise()
		v := g.MatMul(l.V, h, nil)
		noise()
		q = g.Rope(q, rp(c.NHead), m.RopeFreqs)
		noise()
		k = g.Rope(k, rp(c.NHeadKV), m.RopeFreqs)
		noise()
		g.KVWrite(k, v, kv.K[il], kv.V[il], ap)
		o := g.MatMul(l.Output, g.Attention(q, kv.K[il], kv.V[il], ap), nil)
		noise()
		x = g.Add(o, x)
		h = g.RMSNorm(x, l.FFNNorm, c.Eps, c.NEmbd)
		up := g.MatMul(l.Up, h, nil)
		noise()
		gate := g.MatMul(l.Gate, h, nil)
		noise()
		d := g.MatMul(l.Down, g.GLU(gate, up, compute.ActSiLU), nil)
		noise()
		x = g.Add(x, d)
	}
	return g.SetLogits(g.MatMul(m.Head, g.RMSNorm(g.SelectRows(x), m.Norm, c.Eps, c.NEmbd), nil))
}

func TestFusionsIgnoreNodeOrder(t *testing.T) {
	f, err := gguf.OpenPath(filepath.Join(enginetest.Testdata(), "models", "tiny-llama-q8_0.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mm, err := model.Load(f)
	if err != nil {
		t.Fatal(err)
	}
	m := mm.(*model.Llama)
	c := m.Config()
	b := gpu.New(device(t))
	defer b.Close()
	for _, w := range m.Weights() {
		ti, _ := f.Tensor(w.Name)
		if err := b.LoadWeight(w, ti.Size, func(fn func(int64, []byte) error) error {
			return f.StreamTensor(ti, make([]byte, 1<<16), fn)
		}); err != nil {
			t.Fatal(err)
		}
	}
	const nCtx = 64
	ctx := context.Background()
	ids := []int32{1, 17, 300, 42, 9, 77, 5, 123, 64, 2, 11}
	run := func(interleaved bool) ([][]float32, map[string]int) {
		// A prefill and a decode graph over one cache pair of their own.
		kv := model.NewKVCache(c, nCtx, 8)
		for i := range kv.K {
			_ = b.AllocCache(kv.K[i])
			_ = b.AllocCache(kv.V[i])
		}
		mk := func(B int) (compute.Program, map[string]int) {
			g := compute.NewGraph(B, B)
			var err error
			if interleaved {
				err = llamaInterleaved(g, m, kv)
			} else {
				err = m.Forward(g, kv)
			}
			if err != nil {
				t.Fatal(err)
			}
			p, err := b.Compile(g)
			if err != nil {
				t.Fatal(err)
			}
			return p, gpu.FusionCounts(g)
		}
		pre, _ := mk(8)
		dec, counts := mk(1)
		nv := c.NVocab
		logits := make([]float32, 8*nv)
		var out [][]float32
		rows := []int32{0, 1, 2, 3, 4, 5, 6, 7}
		if err := pre.Run(ctx, compute.Step{Pos0: 0, Tokens: ids[:8], OutRows: rows}, logits); err != nil {
			t.Fatal(err)
		}
		for r := range 8 {
			out = append(out, append([]float32(nil), logits[r*nv:(r+1)*nv]...))
		}
		for i := 8; i < len(ids); i++ {
			if err := dec.Run(ctx, compute.Step{Pos0: i, Tokens: ids[i : i+1], OutRows: []int32{0}}, logits); err != nil {
				t.Fatal(err)
			}
			out = append(out, append([]float32(nil), logits[:nv]...))
		}
		return out, counts
	}
	want, wantCounts := run(false)
	got, gotCounts := run(true)
	for k, v := range wantCounts {
		if gotCounts[k] != v {
			t.Errorf("%s fusions: %d interleaved, %d in the model's order", k, gotCounts[k], v)
		}
	}
	if wantCounts["qkv"] != c.NLayer || wantCounts["glu"] != c.NLayer || wantCounts["residual"] != 2*c.NLayer || wantCounts["rope_kv"] != c.NLayer {
		t.Errorf("the model's own order fuses %v", wantCounts)
	}
	var worst float64
	for p := range want {
		for j := range want[p] {
			worst = math.Max(worst, math.Abs(float64(got[p][j]-want[p][j])))
		}
	}
	t.Logf("fusions %v; max |Δlogit| interleaved vs model order %.2e", gotCounts, worst)
	if worst > 1e-4 {
		t.Errorf("interleaved graph's logits differ by %g", worst)
	}
}
