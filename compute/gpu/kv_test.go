package gpu_test

import (
	"context"
	"errors"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/enginetest"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model/modeltest"
)

// TestKVCacheType: the GPU backend's caches are f16 by default (half the
// bytes of f32, in the plan and in what the backend holds), f32 on request;
// other types are refused, and a graph over caches of both types does not
// compile.
func TestKVCacheType(t *testing.T) {
	s := enginetest.ShapeSpecs[0]
	s.Seed = 7
	f, err := modeltest.Open(s)
	if err != nil {
		t.Fatal(err)
	}
	const nCtx = 64
	elems := int64(2 * s.NLayer * s.NHeadKV * nCtx * s.HeadDim) // K and V
	info := map[gguf.GGMLType]engine.Info{}
	for _, kv := range []gguf.GGMLType{gguf.TypeF16, gguf.TypeF32} {
		be := gpu.New(device(t))
		if kv == gguf.TypeF32 { // f16: the default, not set
			if err := be.SetKVType(kv); err != nil {
				t.Fatal(err)
			}
		}
		e, err := engine.Load(context.Background(), f, engine.Options{NCtx: nCtx, NUbatch: 8, Backend: be})
		if err != nil {
			t.Fatal(err)
		}
		info[kv] = e.Info()
		e.Close()
	}
	if got, want := info[gguf.TypeF16].Plan.KVBytes, 2*elems; got != want {
		t.Errorf("default (f16) plan: %d KV bytes, want %d", got, want)
	}
	if got, want := info[gguf.TypeF32].Plan.KVBytes, 4*elems; got != want {
		t.Errorf("f32 plan: %d KV bytes, want %d", got, want)
	}
	if d := info[gguf.TypeF32].BackendBytes - info[gguf.TypeF16].BackendBytes; d != 2*elems {
		t.Errorf("backend bytes: f32 %d, f16 %d: %d apart, want the cache's %d", info[gguf.TypeF32].BackendBytes, info[gguf.TypeF16].BackendBytes, d, 2*elems)
	}

	be := gpu.New(device(t))
	defer be.Close()
	var ge *gpu.Error
	if err := be.SetKVType(gguf.TypeQ8_0); !errors.As(err, &ge) {
		t.Errorf("SetKVType(q8_0) = %v, want a *gpu.Error", err)
	}
	// One layer's K cache in f16, its V cache in f32.
	kc, vc := compute.NewCache("k", 16, 8, 2), compute.NewCache("v", 16, 8, 2)
	if err := be.AllocCache(kc); err != nil {
		t.Fatal(err)
	}
	if err := be.SetKVType(gguf.TypeF32); err != nil {
		t.Fatal(err)
	}
	if err := be.AllocCache(vc); err != nil {
		t.Fatal(err)
	}
	if a, b := be.CacheBytes(kc), be.CacheBytes(vc); a != 16*8*2*4 || b != a {
		t.Errorf("CacheBytes after SetKVType(f32): %d, %d, want %d", a, b, 16*8*2*4)
	}
	g := compute.NewGraph(1, 1)
	emb := compute.NewWeight("emb", gguf.TypeF32, 32, 10)
	p := compute.AttnParams{NHead: 2, NHeadKV: 2, HeadDim: 16, Scale: 0.25}
	x := g.GetRows(emb)
	g.KVWrite(x, x, kc, vc, p)
	if err := g.SetLogits(g.MatMul(emb, g.SelectRows(g.Attention(x, kc, vc, p)), nil)); err != nil {
		t.Fatal(err)
	}
	if _, err := be.Compile(g); !errors.As(err, &ge) || ge.Tensor != "v" {
		t.Errorf("Compile over an f16 and an f32 cache = %v, want a *gpu.Error naming the cache", err)
	}
}
