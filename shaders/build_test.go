package shaders

import (
	"errors"
	"strings"
	"testing"

	"github.com/webgguf/webgguf/gguf"
)

// allKeys lists one key per op and specialization the GPU tests run; the
// template test builds them all so a template error shows up without a GPU.
func allKeys() []Key {
	var ks []Key
	for _, f16 := range []bool{false, true} {
		for _, t := range WeightTypes {
			ks = append(ks,
				Key{Op: OpGetRows, Weight: t, F16: f16},
				Key{Op: OpMatvec, Weight: t, F16: f16},
				Key{Op: OpMatmul, Weight: t, F16: f16},
			)
		}
		ks = append(ks,
			Key{Op: OpMatvec, Weight: gguf.TypeQ4_0, F16: f16, Bias: true, Residual: true},
			Key{Op: OpMatvec, Weight: gguf.TypeQ4_K, F16: f16, SwiGLU: true},
			Key{Op: OpMatmul, Weight: gguf.TypeQ8_0, F16: f16, Bias: true, Residual: true},
			Key{Op: OpRMSNorm, F16: f16}, Key{Op: OpRMSNorm, F16: f16, Residual: true},
			Key{Op: OpRoPE, F16: f16}, Key{Op: OpRoPE, F16: f16, Neox: true, FreqFactors: true},
			Key{Op: OpSiLUMul, F16: f16}, Key{Op: OpGELU, F16: f16}, Key{Op: OpAdd, F16: f16}, Key{Op: OpScale, F16: f16},
			Key{Op: OpGELUMul, F16: f16}, Key{Op: OpSiLU, F16: f16}, Key{Op: OpMul, F16: f16}, Key{Op: OpSoftcap, F16: f16},
			Key{Op: OpLayerNorm, F16: f16}, Key{Op: OpLayerNorm, F16: f16, Bias: true},
			Key{Op: OpMatvec, Weight: gguf.TypeQ4_K, F16: f16, SwiGLU: true, Act: ActGELU, Norm: true},
			Key{Op: OpMatmul, Weight: gguf.TypeQ4_K, F16: f16, SwiGLU: true, Act: ActGELU},
			Key{Op: OpArgmax, F16: f16}, Key{Op: OpTopK, TopK: 40, F16: f16},
			Key{Op: OpRoPEKV, F16: f16, KV: gguf.TypeF16, Neox: true, FreqFactors: true},
			Key{Op: OpMatvecQKV, F16: f16, Weight: gguf.TypeQ4_K, WeightK: gguf.TypeQ4_K, WeightV: gguf.TypeQ6_K, Bias: true},
		)
		for _, kv := range []gguf.GGMLType{gguf.TypeF32, gguf.TypeF16} {
			ks = append(ks,
				Key{Op: OpKVWrite, KV: kv, F16: f16},
				Key{Op: OpAttnDecode, KV: kv, HeadDim: 64, F16: f16},
				Key{Op: OpAttnPrefill, KV: kv, HeadDim: 64, F16: f16},
				Key{Op: OpAttnPrefill, KV: kv, HeadDim: 64, F16: f16, WG: 256, SplitK: 4},
				Key{Op: OpAttnPrefill, KV: kv, HeadDim: 128, F16: f16, Coop: true},
				Key{Op: OpAttnPrefill, KV: kv, HeadDim: 64, F16: f16, Coop: true, WG: 128, TK: 16},
				Key{Op: OpAttnDecode, KV: kv, HeadDim: 64, F16: f16, Coop: true, Prefetch: true},
				Key{Op: OpAttnDecode, KV: kv, HeadDim: 128, F16: f16, Coop: true, NoSplit: true},
				Key{Op: OpMatvecQKV, F16: f16, Weight: gguf.TypeQ4_0, WeightK: gguf.TypeQ4_0, WeightV: gguf.TypeQ8_0, HeadDim: 64, KV: kv},
				Key{Op: OpMatvecQKV, F16: f16, Weight: gguf.TypeQ4_K, WeightK: gguf.TypeQ4_K, WeightV: gguf.TypeQ6_K, HeadDim: 128, KV: kv,
					Bias: true, Norm: true, Neox: true, FreqFactors: true},
			)
		}
		ks = append(ks, Key{Op: OpAttnMerge, HeadDim: 64, F16: f16})
	}
	return ks
}

func TestBuildAll(t *testing.T) {
	for _, k := range allKeys() {
		kern, err := Build(k)
		if err != nil {
			t.Fatalf("%v: %v", k, err)
		}
		if strings.Contains(kern.WGSL, "<no value>") {
			t.Fatalf("%v: unfilled template value", k)
		}
		if n := strings.Count(kern.WGSL, "@binding("); n != len(kern.Bindings) {
			t.Errorf("%v: WGSL declares %d bindings, layout has %d", k, n, len(kern.Bindings))
		}
		if kern.WorkgroupBytes > 16384 {
			t.Errorf("%v: %d bytes of workgroup memory exceed WebGPU's default 16384", k, kern.WorkgroupBytes)
		}
	}
}

func TestBuildRejects(t *testing.T) {
	bad := []Key{
		{Op: 0},
		{Op: OpAttnPrefill, KV: gguf.TypeF32, HeadDim: 64, Coop: true, SplitK: 2},
		{Op: OpAttnPrefill, KV: gguf.TypeF32, HeadDim: 80, Coop: true},
		{Op: OpAttnPrefill, KV: gguf.TypeF32, HeadDim: 64, Coop: true, WG: 512},
		{Op: OpAttnPrefill, KV: gguf.TypeF32, HeadDim: 64, Coop: true, WG: 128, TK: 6},
		{Op: OpAttnPrefill, KV: gguf.TypeF32, HeadDim: 64, Coop: true, WG: 256, TK: 32},
		{Op: OpMatvec, Weight: gguf.TypeQ8_1},
		{Op: OpMatvec, Weight: gguf.TypeQ4_0, WG: 100},
		{Op: OpMatvec, Weight: gguf.TypeQ4_0, Rows: 3},
		{Op: OpMatvec, Weight: gguf.TypeQ4_0, Rows: 4, RPT: 8},
		{Op: OpMatvec, Weight: gguf.TypeQ4_0, Rows: 32, RPT: 32},
		{Op: OpMatvec, Weight: gguf.TypeQ4_0, SwiGLU: true, Bias: true},
		{Op: OpMatmul, Weight: gguf.TypeQ4_0, TM: 32, TN: 64, TK: 16},
		{Op: OpMatmul, Weight: gguf.TypeQ4_0, TM: 128, TN: 128, TK: 32},
		{Op: OpAttnDecode, KV: gguf.TypeF16, HeadDim: 63},
		{Op: OpAttnDecode, KV: gguf.TypeQ8_0, HeadDim: 64},
		{Op: OpTopK, TopK: 0},
		{Op: OpArgmax, Subgroups: true},
	}
	for _, k := range bad {
		_, err := Build(k)
		var ke *KeyError
		if !errors.As(err, &ke) {
			t.Errorf("%v: got %v, want *KeyError", k, err)
		}
	}
}

// Random keys and shapes, including nonsense, never panic: Build returns a
// Kernel or a *KeyError, and Dispatch never wraps a negative size around.
func TestBuildRandomKeys(t *testing.T) {
	r := newRand(t)
	vals := []int{-5, 0, 1, 2, 3, 4, 8, 16, 32, 64, 100, 128, 256, 1024, 4096}
	pick := func() int { return vals[r.IntN(len(vals))] }
	types := append(append([]gguf.GGMLType{}, WeightTypes...), gguf.TypeQ8_1, gguf.TypeIQ2_XXS, gguf.GGMLType(999))
	for i := 0; i < 3000; i++ {
		k := Key{
			Op: Op(r.IntN(20)), Weight: types[r.IntN(len(types))], WeightK: types[r.IntN(len(types))],
			WeightV: types[r.IntN(len(types))], KV: types[r.IntN(len(types))], F16: r.IntN(2) == 0,
			WG: pick(), Rows: pick(), RPT: pick(), TM: pick(), TN: pick(), TK: pick(), HeadDim: pick(),
			Bias: r.IntN(2) == 0, Residual: r.IntN(2) == 0, SwiGLU: r.IntN(2) == 0, Neox: r.IntN(2) == 0,
			FreqFactors: r.IntN(2) == 0, NoSplit: r.IntN(2) == 0, TopK: pick(),
		}
		kern, err := Build(k)
		if err != nil {
			var ke *KeyError
			if !errors.As(err, &ke) {
				t.Fatalf("%v: error %v is not a *KeyError", k, err)
			}
			continue
		}
		x, y, z := kern.Dispatch(Shape{M: pick(), N: pick() * pick(), K: pick(), Heads: pick(), KVHeads: pick(), Splits: pick()})
		if uint64(x)*uint64(y)*uint64(z) > 1<<40 {
			t.Fatalf("%v: grid %d x %d x %d", k, x, y, z)
		}
	}
}

// TestGQALanes: every group of 2..16 heads is covered by the fewest
// workgroups of at most 4 lanes, with fewer than one workgroup's lanes idle,
// and the Coop GQA kernel's grid has that many columns per KV head.
func TestGQALanes(t *testing.T) {
	for g := 2; g <= 16; g++ {
		lanes, subs := gqaLanes(g)
		if lanes < 2 || lanes > 4 || subs != (g+3)/4 || lanes*subs < g || lanes*subs-g >= lanes {
			t.Errorf("group %d: %d workgroups of %d lanes", g, subs, lanes)
		}
		k, err := Build(Key{Op: OpAttnDecode, KV: gguf.TypeF32, HeadDim: 64, Coop: true, Group: g})
		if err != nil {
			t.Fatalf("group %d: %v", g, err)
		}
		if x, y, _ := k.Dispatch(Shape{Heads: 3 * g, KVHeads: 3, Splits: 5}); x != 5 || int(y) != 3*subs {
			t.Errorf("group %d: grid %d×%d, want 5×%d", g, x, y, 3*subs)
		}
	}
}
