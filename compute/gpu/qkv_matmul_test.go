package gpu_test

import (
	"fmt"
	"testing"

	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model/modeltest"
)

// TestPrefillQKVMatchesReference runs prefill with the Q, K and V MatMuls
// fused into one QKV matmul (the default) and as three matmuls
// (SetPrefillQKV(false)), unsplit and with split-K forced on (so the
// partials go through split_sum's QKV scatter), on a model with q/k/v
// biases (qwen2; K = 384 splits in 3 at 80 rows) and one without (K =
// 256: 2 slices); every position's logits are judged
// against the float64 reference and the three-matmul run, and the fused
// run must dispatch fewer kernels.
func TestPrefillQKVMatchesReference(t *testing.T) {
	specs := []modeltest.Spec{
		{Arch: "qwen2", NEmbd: 384, NLayer: 2, NFF: 320, NVocab: 300, NHead: 6, NHeadKV: 2, HeadDim: 64, Type: gguf.TypeQ8_0},
		{Arch: "llama", NEmbd: 256, NLayer: 1, NFF: 512, NVocab: 300, NHead: 4, NHeadKV: 2, HeadDim: 64, Type: gguf.TypeQ4_K, Untied: true},
	}
	for i, s := range specs {
		s.Seed = uint64(300 + i)
		for _, split := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s_%s_split=%t", s.Arch, s.Type, split), func(t *testing.T) {
				f, ids, want := referenceCase(t, s, 90, 41, 3)
				three := gpu.New(device(t))
				three.SetMatmulSplitK(split)
				three.SetPrefillQKV(false)
				plain, plainLast, plainDisp := evalUbatch(t, f, ids, three, 80)
				be := gpu.New(device(t))
				be.SetMatmulSplitK(split)
				fused, fusedLast, fusedDisp := evalUbatch(t, f, ids, be, 80)
				if fusedDisp >= plainDisp {
					t.Fatalf("prefill: %d dispatches fused, %d as three matmuls: the QKV matmul was not taken", fusedDisp, plainDisp)
				}
				for p := range ids {
					judgeVariant(t, fmt.Sprintf("pos %d: QKV matmul", p), fused[p], want[p], plain[p], "three matmuls")
				}
				judgeVariant(t, "last of an 80+10 prefill: QKV matmul", fusedLast, want[len(ids)-1], plainLast, "three matmuls")
			})
		}
	}
}
