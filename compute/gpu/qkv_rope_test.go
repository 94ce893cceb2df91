package gpu_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/enginetest"
	"github.com/webgguf/webgguf/gguf"
)

// TestQKVRopeMatchesFloat64 decodes llama shapes token by token with RoPE
// and the KV write in the QKV matvec's epilogue (the default) and without
// (SetQKVRope(false): a rope_kv dispatch per layer): every logit of both
// within 0.02 of the float64 reference (the Shapes rule), and the fused
// program one dispatch per layer shorter; each with an f16 cache (the
// default) and an f32 one. Shapes: partial rotary (NRot 32 of 64), Llama 3
// rope_freqs and qwen2 (NEOX RoPE, q/k/v biases).
func TestQKVRopeMatchesFloat64(t *testing.T) {
	for _, si := range []int{2, 3, 5} {
		s := enginetest.ShapeSpecs[si]
		s.Seed = uint64(si + 40)
		t.Run(fmt.Sprintf("%s_h%d_kv%d_d%d_rot%d_ff%v", s.Arch, s.NHead, s.NHeadKV, s.HeadDim, s.NRot, s.RopeFreqs), func(t *testing.T) {
			const n = 6
			f, ids, want := referenceCase(t, s, n, 31, 5)
			for _, kv := range []gguf.GGMLType{gguf.TypeF16, gguf.TypeF32} {
				testQKVRope(t, f, ids, want, kv, s.NLayer)
			}
		})
	}
}

func testQKVRope(t *testing.T, f *gguf.File, ids []int32, want [][]float64, kv gguf.GGMLType, nLayer int) {
	t.Helper()
	n := len(ids)
	disp := map[bool]int{}
	for _, on := range []bool{true, false} {
		be := gpu.New(device(t))
		be.SetQKVRope(on)
		if err := be.SetKVType(kv); err != nil {
			t.Fatal(err)
		}
		e, err := engine.Load(context.Background(), f, engine.Options{NCtx: 32, NUbatch: 8, Backend: be})
		if err != nil {
			t.Fatal(err)
		}
		for p := 0; p < n; p++ {
			l, err := e.Eval(context.Background(), ids[p:p+1], engine.LogitsLast)
			if err != nil {
				e.Close()
				t.Fatal(err)
			}
			disp[on] = be.Stats().Dispatches
			for i, w := range want[p] {
				if x := math.Abs(float64(l[0][i]) - w); x > 0.02 {
					e.Close()
					t.Fatalf("kv %s, fused %v, pos %d: logit %d = %.5f, reference %.5f", kv, on, p, i, l[0][i], w)
				}
			}
		}
		e.Close()
	}
	if disp[false]-disp[true] != nLayer {
		t.Errorf("kv %s, dispatches per step: fused %d, unfused %d: want one rope_kv per layer (%d) apart", kv, disp[true], disp[false], nLayer)
	}
}
