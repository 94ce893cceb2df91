package engine_test

import (
	"context"
	"errors"
	"math"
	"runtime"
	"testing"

	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model/modeltest"
)

// wasmLimit is the HostMemoryLimit a wasm32 build applies by default, for
// the tests that run natively: the 4 GiB address space less what is in use.
func wasmLimit() int64 {
	if runtime.GOARCH == "wasm" {
		return 0 // the default is the rule itself
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return engine.HostBudget(4<<30, math.MaxInt64, int64(ms.Sys-ms.HeapIdle))
}

// TestSmallFileHugeKVIsRefusedBeforeAllocating loads a 20 MB file whose
// header declares 160 layers of 1024-wide K and V: at its 4096-position
// context the f32 cache alone is 5 GiB, beyond wasm32's 4 GiB. Load must
// return a typed *MemoryError naming the needed and available bytes, and
// neither stream a weight nor allocate the cache. (Before the budget, the
// 16 GiB default let the plan through and the CPU path died with "fatal
// error: out of memory" in the browser.)
func TestSmallFileHugeKVIsRefusedBeforeAllocating(t *testing.T) {
	f, err := modeltest.Open(modeltest.Spec{Arch: "llama", NEmbd: 8, NLayer: 160, NFF: 8, NVocab: 32,
		NHead: 8, NHeadKV: 8, HeadDim: 128, Type: gguf.TypeF16, ContextLength: 4096, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var loaded int64
	// NCtx is the file's own 4096, asked for explicitly: a context the
	// caller chose is refused, not shrunk.
	_, err = engine.Load(context.Background(), f, engine.Options{NCtx: 4096, HostMemoryLimit: wasmLimit(),
		Progress: func(d, _ int64) { loaded = d }})
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	var me *engine.MemoryError
	if !errors.As(err, &me) {
		t.Fatalf("got %v, want a *MemoryError", err)
	}
	const kv = 2 * 160 * 4096 * 1024 * 4
	if me.Plan.KVBytes != kv || me.Need != me.Plan.Total() || me.Limit >= me.Need || me.Limit > 4<<30 {
		t.Errorf("got %+v, want the %d-byte KV plan over at most 4 GiB", me, int64(kv))
	}
	if want := engine.SpaceGoMemory; runtime.GOARCH == "wasm" {
		if me.Space != engine.SpaceWasmMemory {
			t.Errorf("space %q, want %q", me.Space, engine.SpaceWasmMemory)
		}
	} else if me.Space != want {
		t.Errorf("space %q, want %q", me.Space, want)
	}
	if loaded != 0 {
		t.Errorf("%d weight bytes streamed before the plan was refused", loaded)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("Load allocated %d bytes before refusing the plan", grew)
	}
	t.Log(err)
}

// TestDefaultContextShrinksToFit checks the other answer to a plan too big:
// a context the caller left to the file's default is halved until the plan
// fits, and Info says from what.
func TestDefaultContextShrinksToFit(t *testing.T) {
	spec := modeltest.Spec{Arch: "llama", NEmbd: 32, NLayer: 2, NFF: 32, NVocab: 32,
		NHead: 2, NHeadKV: 2, HeadDim: 64, Type: gguf.TypeF32, ContextLength: 4096, Seed: 1}
	f, err := modeltest.Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	// Measure the plan at 1024 positions, then allow exactly that.
	e, err := engine.Load(context.Background(), f, engine.Options{NCtx: 1024})
	if err != nil {
		t.Fatal(err)
	}
	fit := e.Info().Plan.Total()
	_ = e.Close()
	e, err = engine.Load(context.Background(), f, engine.Options{HostMemoryLimit: fit})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.NCtx() != 1024 || e.Info().ShrunkFrom != 4096 {
		t.Errorf("n_ctx %d shrunk from %d, want 1024 from 4096", e.NCtx(), e.Info().ShrunkFrom)
	}
	if _, err := e.Eval(context.Background(), []int32{1, 2, 3}, engine.LogitsLast); err != nil {
		t.Error(err)
	}
	// Below the smallest context worth shrinking to, the default is refused.
	var me *engine.MemoryError
	if _, err := engine.Load(context.Background(), f, engine.Options{HostMemoryLimit: 1 << 20}); !errors.As(err, &me) {
		t.Errorf("got %v, want a *MemoryError", err)
	}
}
