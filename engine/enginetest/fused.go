package enginetest

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/reference"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
	"github.com/webgguf/webgguf/model/modeltest"
)

// FusedSpecs are the llama models of the fused-weights judgement
// (FusedViews): GQA, q8_0 and q4_K (whose views start inside the file's
// 256-element super-block rows).
var FusedSpecs = []modeltest.Spec{
	{Arch: "llama", NEmbd: 256, NLayer: 2, NFF: 384, NVocab: 256, NHead: 4, NHeadKV: 2, HeadDim: 64, Type: gguf.TypeQ8_0, Seed: 21},
	{Arch: "llama", NEmbd: 256, NLayer: 2, NFF: 512, NVocab: 192, NHead: 8, NHeadKV: 2, HeadDim: 32, Type: gguf.TypeQ4_K, Seed: 22},
}

// Fusions are the fusions FusedModels writes: Phi-3's, q, k, v as
// attn_qkv and gate, up as ffn_up.
func Fusions() []model.Fusion { return []model.Fusion{model.FusedQKV(), model.FusedGateUp()} }

// FusedModels returns FusedSpecs[i] and a copy of it with the weights of
// Fusions fused (modeltest.Fuse): the same bytes, in the layout Phi-3's
// converter writes. The fused file loads only while
// model.SetFusions("llama", Fusions()...) is in force.
func FusedModels(t testing.TB, i int) (plain, fused *gguf.File) {
	t.Helper()
	b, err := modeltest.Bytes(FusedSpecs[i])
	if err != nil {
		t.Fatal(err)
	}
	fb, err := modeltest.Fuse(b, Fusions()...)
	if err != nil {
		t.Fatal(err)
	}
	if plain, err = gguf.Open(bytes.NewReader(b), int64(len(b))); err != nil {
		t.Fatal(err)
	}
	if fused, err = gguf.Open(bytes.NewReader(fb), int64(len(fb))); err != nil {
		t.Fatal(err)
	}
	return plain, fused
}

// FusedViews checks weight views end to end on backends from nb: each
// FusedModels pair, the fused one loaded through views of its attn_qkv
// and ffn_up, must give bit for bit the unfused model's logits at every
// position, through the prefill and the decode graphs, and the float64
// reference must read both alike. check, if not nil, is then called with
// both engines' backends (nil for the default CPU), whose last step was
// a decode step: the GPU backend compares its dispatch counts there.
func FusedViews(t *testing.T, nb NewBackend, check func(t *testing.T, plain, fused compute.Backend)) {
	for i, s := range FusedSpecs {
		t.Run(fmt.Sprintf("%s_%s", s.Arch, s.Type), func(t *testing.T) {
			plain, fused := FusedModels(t, i)
			ids := make([]int32, 11)
			for j := range ids {
				ids[j] = int32((j*53 + 7) % s.NVocab)
			}
			load := func(f *gguf.File) (*engine.Engine, compute.Backend) {
				opts := engine.Options{NCtx: 32, NUbatch: 4}
				if nb != nil {
					opts.Backend = nb(t)
				}
				e, err := engine.Load(context.Background(), f, opts)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { e.Close() })
				return e, opts.Backend
			}
			ep, bp := load(plain)
			wantRef, err := reference.Logits(plain, ids[:4])
			if err != nil {
				t.Fatal(err)
			}
			var ef *engine.Engine
			var bf compute.Backend
			var gotRef [][]float64
			func() {
				defer model.SetFusions("llama", Fusions()...)()
				ef, bf = load(fused)
				gotRef, err = reference.Logits(fused, ids[:4])
			}()
			if err != nil {
				t.Fatal(err)
			}
			for p := range wantRef {
				for k, w := range wantRef[p] {
					if gotRef[p][k] != w {
						t.Fatalf("reference pos %d logit %d: fused %g, unfused %g", p, k, gotRef[p][k], w)
					}
				}
			}
			pb, pd := PrefillAndDecode(t, ep, ids)
			fb, fd := PrefillAndDecode(t, ef, ids)
			for path, pair := range map[string][2][][]float32{"prefill": {pb, fb}, "decode": {pd, fd}} {
				for p := range ids {
					want, got := pair[0][p], pair[1][p]
					for k := range want {
						if got[k] != want[k] {
							t.Fatalf("%s pos %d logit %d: fused %g, unfused %g", path, p, k, got[k], want[k])
						}
					}
				}
			}
			if check != nil {
				check(t, bp, bf)
			}
		})
	}
}
