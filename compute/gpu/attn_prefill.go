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

// attnPrefillKey fills the prefill attention key's threads per query and
// workgroup size: software adapters keep one thread per query (the
// default 64-query workgroup) unless a test forces the parts.
func (c *compiler) attnPrefillKey(key shaders.Key, heads, rows int) shaders.Key {
	parts := int(attnPartsForced.Load())
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
