package gpu

import (
	"sync/atomic"

	"github.com/webgguf/webgguf/shaders"
)

// attnPartsForced, when > 0, is the threads per query of every prefill
// attention compiled afterwards, on software adapters too (tests).
var attnPartsForced atomic.Int32

// attnPrefillParts is the prefill attention's threads per query
// (shaders Key.SplitK on OpAttnPrefill) on hardware adapters, with 64
// queries per workgroup. One thread per query gave a Llama-1B pp512 step
// (M = 512, 32 heads) only 16k threads. H100, attn_prefill per step at
// depth 0 / 2048 (vec4 rows): 1 thread 4.15 / 21.0 ms, 2 threads 2.16 /
// 9.9, 4 threads 2.12 / 10.9, 4 threads and 32 queries 2.09 / 14.4; the
// vec2 kernel with 1 thread 3.85 / 19.4.
const attnPrefillParts = 2

// attnFewGroups: a prefill attention of fewer 64-query workgroups (heads ×
// query blocks) than the H100/H200's 132 SMs takes 32 queries and 4
// threads per query instead, twice the workgroups (Qwen2.5-0.5B, 14 heads,
// pp512: 114 → 95 µs a layer on the H100).
const attnFewGroups = 132

// PrefillAttention picks the prefill attention kernel of programs a
// Backend compiles (SetPrefillAttention).
type PrefillAttention struct {
	// WG is the workgroup size of the register-tiled kernel (shaders
	// Key.Coop on OpAttnPrefill: 64, 128 or 256 threads, 4 a query) on
	// hardware adapters, for the head sizes it takes
	// (shaders.TiledAttnPrefill); 0 selects the per-query kernel
	// (attnPrefillParts threads a query) everywhere.
	WG int
	// Keys is the tiled kernel's keys a tile (shaders Key.TK); 0, or
	// more than fit the head size (16 at head size 256), the most that
	// fit 16 KiB of workgroup memory (shaders.AttnTiledKeys).
	Keys int
	// OnSoftware makes software adapters (lavapipe, SwiftShader) take the
	// tiled kernel too; they keep the one-thread-a-query kernel otherwise.
	// For tests: it lets CI run the tiled kernel end to end.
	OnSoftware bool
}

// DefaultPrefillAttention is the prefill attention of a new Backend: the
// tiled kernel with 32 queries and 16 keys a tile, the fastest of the
// tiles tried at depths 0 and 2048 (Llama-1B pp512 on an H100: attn_prefill
// 161 → 101 µs a layer against the per-query kernel; head size 128 on the
// H200 240 → 124 µs; scripts/bench/device-prefill-attn.sh).
var DefaultPrefillAttention = PrefillAttention{WG: 128, Keys: 16}

// SetPrefillAttention sets the prefill attention of programs compiled
// afterwards (tuning and tests). Software adapters take the tiled kernel
// only with OnSoftware.
func (b *Backend) SetPrefillAttention(a PrefillAttention) {
	b.mu.Lock()
	b.pattn = &a
	b.mu.Unlock()
}

func (b *Backend) prefillAttention() PrefillAttention {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pattn == nil {
		return DefaultPrefillAttention
	}
	return *b.pattn
}

// attnPrefillKey fills the prefill attention key's kernel, threads per
// query and workgroup size: the tiled kernel where the backend's
// PrefillAttention and the head size allow, else the per-query one;
// software adapters keep one thread per query (the default 64-query
// workgroup) unless a test forces the parts or OnSoftware is set.
func (c *compiler) attnPrefillKey(key shaders.Key, heads, rows int) shaders.Key {
	parts := int(attnPartsForced.Load())
	a := c.b.prefillAttention()
	if parts == 0 && a.WG > 0 && (!c.b.d.Info().Fallback || a.OnSoftware) && shaders.TiledAttnPrefill(key.HeadDim) {
		key.Coop, key.WG, key.TK = true, a.WG, a.Keys
		if a.Keys > 0 && !shaders.AttnTiledFits(key.HeadDim, a.WG, a.Keys) {
			// Head size 256 (Gemma 3) fits 8 keys a tile (4 at 256
			// threads), not the default 16: the most that fit.
			key.TK = 0
		}
		return key
	}
	if parts == 0 && !c.b.d.Info().Fallback {
		parts = attnPrefillParts
		if heads*((rows+63)/64) < attnFewGroups {
			key.SplitK, key.WG = 4, 128
			return key
		}
	}
	if parts > 1 {
		key.SplitK, key.WG = parts, 64*parts
	}
	return key
}
