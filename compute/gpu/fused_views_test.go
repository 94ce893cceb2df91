package gpu_test

import (
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/engine/enginetest"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
)

// TestFusedWeightViews runs the fused-weights judgement on the GPU: a
// model whose q, k, v and gate, up are fused tensors, loaded through
// views, gives the unfused model's logits bit for bit, and its decode
// step dispatches as many kernels: the QKV and gate+up fusions find the
// views as they find separate weights. It takes about 20 s on lavapipe.
func TestFusedWeightViews(t *testing.T) {
	enginetest.FusedViews(t, newBackend, func(t *testing.T, plain, fused compute.Backend) {
		sp, sf := plain.(*gpu.Backend).Stats(), fused.(*gpu.Backend).Stats()
		t.Logf("decode step: %d dispatches unfused, %d fused", sp.Dispatches, sf.Dispatches)
		if sf.Dispatches != sp.Dispatches || sp.Dispatches == 0 {
			t.Errorf("decode step: %d dispatches fused, %d unfused", sf.Dispatches, sp.Dispatches)
		}
		// The views are placed as the separate weights are, so the
		// prefill matmuls read q, k, v (gate, up) through one binding
		// as often.
		if sf.OneBinding != sp.OneBinding {
			t.Errorf("one-binding matmuls: %d fused, %d unfused", sf.OneBinding, sp.OneBinding)
		}
	})
	for i := range enginetest.FusedSpecs {
		plain, fused := enginetest.FusedModels(t, i)
		counts := func(f *gguf.File) map[string]int {
			m, err := model.Load(f)
			if err != nil {
				t.Fatal(err)
			}
			g := compute.NewGraph(1, 1)
			if err := m.Forward(g, model.NewKVCache(m.Config(), 32, 4)); err != nil {
				t.Fatal(err)
			}
			return gpu.FusionCounts(g)
		}
		want := counts(plain)
		restore := model.SetFusions("llama", enginetest.Fusions()...)
		got := counts(fused)
		restore()
		n := enginetest.FusedSpecs[i].NLayer
		if want["qkv"] != n || want["glu"] != n {
			t.Errorf("spec %d unfused: fusions %v, want qkv and glu on each of %d layers", i, want, n)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("spec %d: %s fusions: %d fused, %d unfused", i, k, got[k], v)
			}
		}
	}
}
