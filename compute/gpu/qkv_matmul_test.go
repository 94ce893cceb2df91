package gpu_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/engine/enginetest"
	"github.com/webgguf/webgguf/engine/reference"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model/modeltest"
)

// TestPrefillQKVMatchesReference runs prefill with the Q, K and V MatMuls
// fused into one QKV matmul (the default) and as three matmuls
// (SetPrefillQKV(false)), unsplit and with split-K forced on (so the
// partials go through split_sum's QKV scatter), on a model with q/k/v
// biases (qwen2; K = 384 splits in 3 at 80 rows), one without (K =
// 256: 2 slices) and an f16 one with double-buffered tiles, its QKV and
// SwiGLU matrices bound once (shaders Key.OneW) and apart; every
// position's logits are judged
// against the float64 reference and the three-matmul run, and the fused
// run must dispatch fewer kernels.
func TestPrefillQKVMatchesReference(t *testing.T) {
	specs := []modeltest.Spec{
		{Arch: "qwen2", NEmbd: 384, NLayer: 2, NFF: 320, NVocab: 300, NHead: 6, NHeadKV: 2, HeadDim: 64, Type: gguf.TypeQ8_0},
		{Arch: "llama", NEmbd: 256, NLayer: 1, NFF: 512, NVocab: 300, NHead: 4, NHeadKV: 2, HeadDim: 64, Type: gguf.TypeQ4_K, Untied: true},
		// A plain format fuses too (three matrices of one format), here
		// with the double-buffered tiles hardware adapters give it.
		{Arch: "llama", NEmbd: 256, NLayer: 1, NFF: 512, NVocab: 300, NHead: 4, NHeadKV: 2, HeadDim: 64, Type: gguf.TypeF16},
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
				if s.Type == gguf.TypeF16 {
					be.SetMatmulDB(true)
				}
				fused, fusedLast, fusedDisp := evalUbatch(t, f, ids, be, 80)
				if fusedDisp >= plainDisp {
					t.Fatalf("prefill: %d dispatches fused, %d as three matmuls: the QKV matmul was not taken", fusedDisp, plainDisp)
				}
				for p := range ids {
					judgeVariant(t, fmt.Sprintf("pos %d: QKV matmul", p), fused[p], want[p], plain[p], "three matmuls")
				}
				judgeVariant(t, "last of an 80+10 prefill: QKV matmul", fusedLast, want[len(ids)-1], plainLast, "three matmuls")
				if s.Type != gguf.TypeF16 {
					return
				}
				// A plain format's Q, K, V (and gate, up) are bound once
				// (shaders Key.OneW), the weights sharing a buffer; with
				// that off, each matrix has a binding of its own.
				if n := be.Stats().OneBinding; n < 2 {
					t.Fatalf("%d matmuls took their matrices through one binding, want the QKV and SwiGLU ones", n)
				}
				apart := gpu.New(device(t))
				apart.SetMatmulSplitK(split)
				apart.SetMatmulDB(true)
				apart.SetMatmulOneBinding(false)
				sep, sepLast, _ := evalUbatch(t, f, ids, apart, 80)
				if n := apart.Stats().OneBinding; n != 0 {
					t.Fatalf("SetMatmulOneBinding(false): %d matmuls took one binding", n)
				}
				for p := range ids {
					judgeVariant(t, fmt.Sprintf("pos %d: matrices bound apart", p), sep[p], want[p], fused[p], "one binding")
				}
				judgeVariant(t, "last of an 80+10 prefill: matrices bound apart", sepLast, want[len(ids)-1], fusedLast, "one binding")
			})
		}
	}
}

// TestPrefillQKVMixedFormatsMatchReference runs the QKV matmul where Q, K
// and V have different formats (shaders Key.WeightK/WeightV) on two files
// that llama.cpp's own quantizer wrote: tiny-llama-q4_k_m (layer 1: q4_K Q
// and K, q6_K V, as Llama Q4_K_M in half its layers) and tiny-llama-mixed
// (q4_0/q4_1/q5_0 and q5_K/q6_K/iq4_nl). Every position's logits are judged
// against the float64 reference and the three-matmul run, unsplit and
// split, and the fused run must dispatch fewer kernels (so the mixed
// layers were fused too: with only the same-format layer fused, the
// tiny-llama-q4_k_m count would drop by one layer's worth, not two).
func TestPrefillQKVMixedFormatsMatchReference(t *testing.T) {
	for _, name := range []string{"tiny-llama-q4_k_m", "tiny-llama-mixed"} {
		f, err := gguf.OpenPath(filepath.Join(enginetest.Testdata(), "models", name+".gguf"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		ids := make([]int32, 40)
		for j := range ids {
			ids[j] = int32((j*37 + 5) % 256)
		}
		want, err := reference.Logits(f, ids)
		if err != nil {
			t.Fatal(err)
		}
		for _, split := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s_split=%t", name, split), func(t *testing.T) {
				three := gpu.New(device(t))
				three.SetMatmulSplitK(split)
				three.SetPrefillQKV(false)
				plain, plainLast, plainDisp := evalUbatch(t, f, ids, three, 32)
				be := gpu.New(device(t))
				be.SetMatmulSplitK(split)
				fused, fusedLast, fusedDisp := evalUbatch(t, f, ids, be, 32)
				// Every layer's 3 matmuls become 1 in the prefill program
				// (split: any split_sums of theirs become 1 too). Before mixed
				// formats, tiny-llama-q4_k_m saved 2 (layer 0) and
				// tiny-llama-mixed none.
				nl, _ := f.Uint("llama.block_count")
				layers := int(nl)
				if saved := plainDisp - fusedDisp; saved < 2*layers {
					t.Fatalf("prefill: %d dispatches fused, %d as three matmuls (%d layers): the QKV matmul did not take every layer", fusedDisp, plainDisp, layers)
				}
				t.Logf("%d layers: %d dispatches as three matmuls, %d fused", layers, plainDisp, fusedDisp)
				for p := range ids {
					judgeVariant(t, fmt.Sprintf("pos %d: QKV matmul", p), fused[p], want[p], plain[p], "three matmuls")
				}
				judgeVariant(t, "last of a 32+8 prefill: QKV matmul", fusedLast, want[len(ids)-1], plainLast, "three matmuls")
			})
		}
	}
}
