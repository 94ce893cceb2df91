package compute

// CacheShifter is implemented by backends that can carry out a context
// shift on their KV caches: llama.cpp's llama_memory_seq_rm of a range of
// positions followed by llama_memory_seq_add of −n to the positions after
// it. A cache holds position p in row p, so the shift is a move of rows
// down the cache, and the keys' RoPE is turned back by the distance moved
// (llama.cpp's K-shift graph, build_graph_shift).
type CacheShifter interface {
	// ShiftCache moves rows src..src+n-1 of the cache tensor t (every KV
	// head) to rows dst..dst+n-1, dst < src; the ranges may overlap. When
	// rope is not nil the rows are keys and each moved row is rotated by
	// RoPE at position dst−src with rope's mode, NRot, Base, Scale and
	// AttnFactor (NHeads and HeadDim are read from t: one head per row) and
	// freqs (a 1-D weight, or nil) as Rope's frequency divisors; values
	// are then what RoPE at their new position would give, up to rounding.
	// A ring cache (NewRingCache) is refused.
	ShiftCache(t *Tensor, src, dst, n int, rope *RopeParams, freqs *Tensor) error
}

// CacheIO is implemented by backends whose caches the host can read and
// write (a session saved to bytes and restored).
type CacheIO interface {
	// ReadCache returns rows 0..n-1 of every KV head of cache t as f32,
	// laid out [head][row][dim].
	ReadCache(t *Tensor, n int) ([]float32, error)
	// WriteCache stores data, laid out as ReadCache returns it, into rows
	// 0..n-1 of cache t (a narrower cache rounds it).
	WriteCache(t *Tensor, n int, data []float32) error
}
