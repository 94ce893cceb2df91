package gpu_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/enginetest"
	"github.com/webgguf/webgguf/internal/longtest"
	"github.com/webgguf/webgguf/model/modeltest"
)

// TestDecodeAttentionVariantsMatchFloat64 decodes generated models one
// token at a time across the short/long attention threshold and compares
// every logit with the float64 reference (0.02, the Shapes rule): steps
// attending to at most ShortMax positions run the one-pass kernel (one
// dispatch per layer fewer: no attn_merge), longer ones split + merge.
// A cache of 300 positions gives 3 splits, so the long tape really merges.
func TestDecodeAttentionVariantsMatchFloat64(t *testing.T) {
	specs := enginetest.ShapeSpecs
	type attnCase struct {
		spec            modeltest.Spec
		attn            gpu.DecodeAttention
		prefill, decode int
	}
	// Each kernel form once: the default thresholds, Group, GroupSplit,
	// wide splits and the wide MQA kernel. The long suite adds the same
	// forms on other shapes.
	cases := []attnCase{
		{specs[3], gpu.DecodeAttention{ShortMax: 6}, 0, 12},             // GQA 4, head 64, rope_freqs
		{specs[6], gpu.DecodeAttention{ShortMax: 5, Group: true}, 2, 8}, // qwen3, GQA 4, head 128, one workgroup per KV head
		{specs[4], gpu.DefaultDecodeAttention, 122, 12},                 // GQA 8, the default threshold (128, 128-key tiles)
		// The split kernel serving a GQA group (Coop, 2 to 4 heads as lanes).
		{specs[3], gpu.DecodeAttention{ShortMax: 6, GroupSplit: true}, 0, 12},
		{specs[4], gpu.DecodeAttention{ShortMax: 4, GroupSplit: true}, 2, 8}, // GQA 8: two workgroups of 4 a KV head
		// Wide splits from range 9 (3 splits below, 5 from there: the grid's
		// last 2 columns idle until then).
		{specs[5], gpu.DecodeAttention{ShortMax: 4, WideFrom: 9}, 0, 14}, // qwen2
		// MQA with wide heads on the wide kernel (gemma3 head 256 with
		// windows over rings, qwen3 head 128): split + merge, the one-pass
		// form up to range 6, 64-key tiles and 128 threads.
		{specs[7], gpu.DefaultDecodeAttention, 0, 14},
		{specs[6], gpu.DecodeAttention{MQASplit: true, WideTK: 64, WideWG: 128, WideShortMax: 5}, 0, 9},
	}
	if longtest.Enabled {
		cases = append(cases,
			attnCase{specs[3], gpu.DecodeAttention{ShortMax: 6, Group: true}, 0, 12},
			attnCase{specs[0], gpu.DecodeAttention{ShortMax: 4, Group: true}, 0, 8}, // no GQA: Group has nothing to group
			attnCase{specs[6], gpu.DecodeAttention{ShortMax: 5, Group: true, GroupSplit: true}, 2, 8},
			attnCase{specs[1], gpu.DecodeAttention{ShortMax: 3, GroupSplit: true}, 0, 8}, // GQA 2, head 128
			attnCase{specs[0], gpu.DecodeAttention{ShortMax: 4, WideFrom: 9}, 3, 10},     // the 5-head llama
			attnCase{specs[7], gpu.DecodeAttention{MQASplit: true, WideTK: 32, WideShortMax: 6}, 2, 10},
		)
	}
	for ci, c := range cases {
		s := c.spec
		s.Seed = uint64(ci + 11)
		t.Run(fmt.Sprintf("%s_h%d_kv%d_d%d_short%d_group%v_split%v_wide%d", s.Arch, s.NHead, s.NHeadKV, s.HeadDim, c.attn.ShortMax, c.attn.Group, c.attn.GroupSplit, c.attn.WideTK), func(t *testing.T) {
			n := c.prefill + c.decode
			f, ids, want := referenceCase(t, s, n, 53, 7)
			be := gpu.New(device(t))
			be.SetDecodeAttention(c.attn)
			e, err := engine.Load(context.Background(), f, engine.Options{NCtx: 300, NUbatch: 16, Backend: be})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			ctx := context.Background()
			if c.prefill > 0 {
				if _, err := e.Eval(ctx, ids[:c.prefill], engine.LogitsNone); err != nil {
					t.Fatal(err)
				}
			}
			// MQA layers with wide heads take the wide kernel's threshold
			// (DecodeAttention.MQASplit, WideShortMax).
			shortMax := c.attn.ShortMax
			if c.attn.MQASplit && s.NHeadKV == 1 && s.HeadDim >= 128 {
				shortMax = 0
				if c.attn.WideTK > 0 {
					shortMax = c.attn.WideShortMax
				}
			}
			disp := map[bool]int{} // dispatches per step by "short"
			var worst float64
			for p := c.prefill; p < n; p++ {
				l, err := e.Eval(ctx, ids[p:p+1], engine.LogitsLast)
				if err != nil {
					t.Fatal(err)
				}
				short := p+1 <= shortMax
				d := be.Stats().Dispatches
				if old, ok := disp[short]; ok && old != d {
					t.Errorf("pos %d: %d dispatches, earlier steps of the same variant %d", p, d, old)
				}
				disp[short] = d
				for i, w := range want[p] {
					if x := math.Abs(float64(l[0][i]) - w); x > worst {
						worst = x
					}
					if x := math.Abs(float64(l[0][i]) - w); x > 0.02 {
						t.Fatalf("pos %d (short %v): logit %d = %.5f, reference %.5f", p, short, i, l[0][i], w)
					}
				}
			}
			if shortMax == 0 { // split + merge at every range
				if disp[true] != 0 || disp[false] == 0 {
					t.Fatalf("want long steps only: %v", disp)
				}
				t.Logf("max |Δ| %.2e; dispatches long %d", worst, disp[false])
				return
			}
			if disp[true] == 0 || disp[false] == 0 {
				t.Fatalf("both variants not exercised: %v", disp)
			}
			if disp[false]-disp[true] != s.NLayer {
				t.Errorf("long steps %d dispatches, short %d: want one attn_merge per layer (%d) more", disp[false], disp[true], s.NLayer)
			}
			t.Logf("max |Δ| %.2e; dispatches short %d, long %d", worst, disp[true], disp[false])
		})
	}
}

// TestDecodeAttentionSingleSplit: a cache short enough for one split never
// records the merge (it would only copy), whatever the threshold.
func TestDecodeAttentionSingleSplit(t *testing.T) {
	s := enginetest.ShapeSpecs[4]
	s.Seed = 3
	f, err := modeltest.Open(s)
	if err != nil {
		t.Fatal(err)
	}
	count := func(nCtx int, a gpu.DecodeAttention) int {
		be := gpu.New(device(t))
		be.SetDecodeAttention(a)
		e, err := engine.Load(context.Background(), f, engine.Options{NCtx: nCtx, NUbatch: 50, Backend: be})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if _, err := e.Eval(context.Background(), make([]int32, 100), engine.LogitsNone); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Eval(context.Background(), []int32{1}, engine.LogitsLast); err != nil {
			t.Fatal(err)
		}
		return be.Stats().Dispatches
	}
	one, split := count(128, gpu.DecodeAttention{}), count(256, gpu.DecodeAttention{})
	if split-one != s.NLayer {
		t.Errorf("position 100, threshold 0: %d dispatches with one split, %d with two: want %d apart", one, split, s.NLayer)
	}
}
