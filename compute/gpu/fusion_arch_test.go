package gpu_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/enginetest"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
)

// TestFusionsPerArchitecture states, for each architecture's decode graph,
// which fusions fire and how many kernels one decode step dispatches, so
// that a Forward emitting its nodes differently (or a fusion that stops
// matching) fails here instead of showing up as a slower benchmark.
//
// Per layer of a llama block with q8_0 weights: the QKV matvec with the
// attention norm and RoPE + KV write in its epilogue, attention (split and
// merge), the output matvec with the residual add, the SwiGLU matvec with
// the FFN norm, the down matvec with the residual add. Qwen3's q/k norms
// sit between the QKV matvec and RoPE, so RoPE + KV write is a kernel of
// its own after the two norms. Gemma 3 adds the post-attention and
// post-FFN norms before each residual add, so neither add fuses into its
// matvec.
func TestFusionsPerArchitecture(t *testing.T) {
	cases := []struct {
		name       string
		fusions    map[string]int
		dispatches int
	}{
		{"tiny-llama-q8_0", nil, 0},
		{"tiny-qwen2-q8_0", nil, 0},
		{"tiny-qwen3-q8_0", nil, 0},
		{"tiny-gemma3-q8_0", nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := gguf.OpenPath(filepath.Join(enginetest.Testdata(), "models", c.name+".gguf"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			m, err := model.Load(f)
			if err != nil {
				t.Fatal(err)
			}
			g := compute.NewGraph(1, 1)
			if err := m.Forward(g, model.NewKVCache(m.Config(), 512, 64)); err != nil {
				t.Fatal(err)
			}
			got := gpu.FusionCounts(g)
			t.Logf("%s: %d layers, fusions %v", c.name, m.Config().NLayer, got)
			for k, v := range c.fusions {
				if got[k] != v {
					t.Errorf("%s fusions: %d, want %d", k, got[k], v)
				}
			}
			b := gpu.New(device(t))
			e, err := engine.Load(context.Background(), f, engine.Options{NCtx: 512, NUbatch: 64, Backend: b})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if _, err := e.Eval(context.Background(), []int32{1}, engine.LogitsLast); err != nil {
				t.Fatal(err)
			}
			d := b.Stats().Dispatches
			t.Logf("%s: %d dispatches a decode step", c.name, d)
			if d != c.dispatches {
				t.Errorf("%d dispatches a decode step, want %d", d, c.dispatches)
			}
		})
	}
}
