package model

import "github.com/webgguf/webgguf/compute"

// KVCache is the per-layer K and V cache, each f32 [head_dim, length,
// n_head_kv], laid out [layer][kv_head][pos][dim]. A sliding-window layer
// whose window is shorter than the context keeps a ring of its window plus
// one micro-batch (compute.NewRingCache); every other layer keeps NCtx
// positions.
type KVCache struct {
	NCtx int
	K, V []*compute.Tensor
}

// NewKVCache describes (does not allocate) a cache of nCtx positions for
// micro-batches of at most maxBatch tokens.
func NewKVCache(c Config, nCtx, maxBatch int) *KVCache {
	kv := &KVCache{NCtx: nCtx}
	for il := range c.NLayer {
		n, ring := nCtx, false
		if w := c.Layers[il].Window; w > 0 && w+maxBatch-1 < nCtx {
			n, ring = w+maxBatch-1, true
		}
		mk := compute.NewCache
		if ring {
			mk = compute.NewRingCache
		}
		kv.K = append(kv.K, mk("cache_k", c.HeadDim, n, c.NHeadKV))
		kv.V = append(kv.V, mk("cache_v", c.HeadDim, n, c.NHeadKV))
	}
	return kv
}

// Keeps reports whether, after positions 0..written-1 were stored, the
// cache still holds what a continuation from position pos needs: the
// window before pos, which a ring layer overwrites once written exceeds
// max(pos - window + 1, 0) + its length.
func (kv *KVCache) Keeps(c Config, pos, written int) bool {
	for il, k := range kv.K {
		if !k.Ring {
			continue
		}
		// Positions lo..pos-1 are needed; position lo's row is
		// overwritten by position lo + length.
		if lo := max(pos-c.Layers[il].Window+1, 0); pos > 0 && written > lo+k.Ne[1] {
			return false
		}
	}
	return true
}

// Bytes is the cache's size in bytes.
func (kv *KVCache) Bytes() int64 {
	var n int64
	for i := range kv.K {
		n += int64(kv.K[i].Elems()+kv.V[i].Elems()) * 4
	}
	return n
}
