package gpu_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/enginetest"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model/modeltest"
)

// smallLimits split every matrix of the generated models below over 64 KiB
// (the embedding and lm head into 6 to 8 parts) and pack the weights into
// buffers of at most 256 KiB, at a 256-byte offset alignment whatever the
// device's (lavapipe's is smaller).
var smallLimits = gpu.WeightLimits{MaxBuffer: 256 << 10, MaxBinding: 64 << 10, Align: 256}

// TestSplitWeightsMatchReference runs generated models whose weights are
// split by rows (tied: get_rows and the lm head read one split tensor;
// untied: a split output.weight) and compares every logit of prefill
// (micro-batches of 5: split matmuls) and decode (split matvecs, SwiGLU and
// residual epilogues, Q/K/V unfused) with the float64 reference and with
// the same model on unsplit weights.
func TestSplitWeightsMatchReference(t *testing.T) {
	specs := []modeltest.Spec{
		{Arch: "llama", NEmbd: 256, NLayer: 2, NFF: 512, NVocab: 1000, NHead: 4, NHeadKV: 1, HeadDim: 64, Type: gguf.TypeQ8_0},
		{Arch: "llama", NEmbd: 256, NLayer: 1, NFF: 384, NVocab: 900, NHead: 4, NHeadKV: 2, HeadDim: 64, Type: gguf.TypeF16, Untied: true},
		{Arch: "qwen2", NEmbd: 256, NLayer: 1, NFF: 512, NVocab: 1100, NHead: 4, NHeadKV: 1, HeadDim: 64, Type: gguf.TypeQ4_K, Untied: true, RopeBase: 1e6},
	}
	for i, s := range specs {
		s.Seed = uint64(100 + i)
		t.Run(fmt.Sprintf("%s_%s_untied=%v", s.Arch, s.Type, s.Untied), func(t *testing.T) {
			f, ids, want := referenceCase(t, s, 11, 389, 7) // ids spread over every part
			whole := evalBoth(t, f, ids, gpu.New(device(t)))
			be := gpu.New(device(t))
			if err := be.SetWeightLimits(smallLimits); err != nil {
				t.Fatal(err)
			}
			split := evalBoth(t, f, ids, be)
			wp := be.WeightPlacement()
			emb := "token_embd.weight"
			if s.Untied {
				emb = "output.weight"
			}
			if wp.Split[emb] < 3 {
				t.Fatalf("%s in %d parts, want >= 3 (placement %+v)", emb, wp.Split[emb], wp)
			}
			if wp.Buffers < 2 || wp.Buffers >= wp.Weights {
				t.Errorf("%d weights in %d buffers: want packing into several buffers", wp.Weights, wp.Buffers)
			}
			t.Logf("%d weights in %d buffers, split: %v", wp.Weights, wp.Buffers, wp.Split)
			for path := range 2 {
				for p := range ids {
					if d, at := diff(split[path][p], want[p]); d > 0.02 {
						t.Errorf("path %d pos %d: split logit %d = %.5f, reference %.5f", path, p, at, split[path][p][at], want[p][at])
					}
					w64 := make([]float64, len(whole[path][p]))
					for k, v := range whole[path][p] {
						w64[k] = float64(v)
					}
					if d, at := diff(split[path][p], w64); d > 1e-3 {
						t.Errorf("path %d pos %d: split logit %d = %.6f, unsplit %.6f", path, p, at, split[path][p][at], w64[at])
					}
				}
			}
		})
	}
}

// evalBoth loads f on be and returns the logits of every position from a
// batched prefill and from token-by-token decode.
func evalBoth(t *testing.T, f *gguf.File, ids []int32, be compute.Backend) [2][][]float32 {
	t.Helper()
	e, err := engine.Load(context.Background(), f, engine.Options{NCtx: 32, NUbatch: 5, Backend: be})
	if err != nil {
		be.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	var out [2][][]float32
	out[0], out[1] = enginetest.PrefillAndDecode(t, e, ids)
	return out
}

func diff(got []float32, want []float64) (float64, int) {
	var d float64
	at := 0
	for i, w := range want {
		if x := math.Abs(float64(got[i]) - w); !(x <= d) {
			d, at = x, i
		}
	}
	return d, at
}

// TestLoadSplitWeightOddChunks streams weights split into parts, planned
// (packed with another weight) and alone, in chunks of odd sizes that
// straddle the part boundaries, and reads every byte back.
func TestLoadSplitWeightOddChunks(t *testing.T) {
	r := rand.New(rand.NewPCG(rand.Uint64(), 3))
	for _, planned := range []bool{false, true} {
		be := gpu.New(device(t))
		defer be.Close()
		if err := be.SetWeightLimits(gpu.WeightLimits{MaxBinding: 8192, MaxBuffer: 16 << 10, Align: 256}); err != nil {
			t.Fatal(err)
		}
		pad := compute.NewWeight("pad", gguf.TypeF32, 5, 1)
		w := compute.NewWeight("w", gguf.TypeQ8_0, 64, 301) // 301 rows × 68 bytes = 20468: over the buffer cap too
		if planned {
			if err := be.PlanWeights([]*compute.Tensor{pad, w}); err != nil {
				t.Fatal(err)
			}
		}
		for _, x := range []*compute.Tensor{pad, w} {
			size := int64(x.Ne[1]) * 4 * int64(x.Ne[0])
			if x.Type == gguf.TypeQ8_0 {
				size = int64(x.Ne[1]) * 68
			}
			data := make([]byte, size)
			for i := range data {
				data[i] = byte(1 + r.IntN(255))
			}
			err := be.LoadWeight(x, size, func(fn func(int64, []byte) error) error {
				for off := 0; off < len(data); {
					n := min(len(data)-off, 1+r.IntN(3000))
					if err := fn(int64(off), data[off:off+n]); err != nil {
						return err
					}
					off += n
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			got, err := gpu.ReadWeight(context.Background(), be, x)
			if err != nil {
				t.Fatal(err)
			}
			for i := range data {
				if got[i] != data[i] {
					t.Fatalf("planned=%v %s byte %d: %d, streamed %d", planned, x.Name, i, got[i], data[i])
				}
			}
		}
		wp := be.WeightPlacement()
		if wp.Split["w"] < 5 {
			t.Errorf("planned=%v: w in %d parts, want >= 5 under an 8 KiB binding limit", planned, wp.Split["w"])
		}
		t.Logf("planned=%v: %+v", planned, wp)
	}
}

// TestPlacementErrors: limits that no split can meet, and limits changed
// after weights were placed, are typed errors naming the tensor.
func TestPlacementErrors(t *testing.T) {
	be := gpu.New(device(t))
	defer be.Close()
	if err := be.SetWeightLimits(gpu.WeightLimits{MaxBinding: 1024, Align: 256}); err != nil {
		t.Fatal(err)
	}
	// One q8_0 row of 4096 columns is 4352 bytes: no split fits 1 KiB.
	w := compute.NewWeight("wide", gguf.TypeQ8_0, 4096, 3)
	var ge *gpu.Error
	if err := be.PlanWeights([]*compute.Tensor{w}); !errors.As(err, &ge) || ge.Tensor != "wide" {
		t.Errorf("PlanWeights: %v, want a *gpu.Error naming wide", err)
	}
	err := be.LoadWeight(w, 3*4352, func(func(int64, []byte) error) error { return nil })
	if !errors.As(err, &ge) || ge.Tensor != "wide" {
		t.Errorf("LoadWeight: %v, want a *gpu.Error naming wide", err)
	}
	ok := compute.NewWeight("ok", gguf.TypeF32, 4, 2)
	if err := be.PlanWeights([]*compute.Tensor{ok}); err != nil {
		t.Fatal(err)
	}
	if err := be.SetWeightLimits(gpu.WeightLimits{}); !errors.As(err, &ge) {
		t.Errorf("SetWeightLimits after PlanWeights: %v, want a *gpu.Error", err)
	}
	if err := be.SetWeightLimits(gpu.WeightLimits{Align: 384}); !errors.As(err, &ge) {
		t.Errorf("alignment 384: %v, want a *gpu.Error", err)
	}
}
