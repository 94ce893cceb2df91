package shaders

// minSlice is the shortest K slice of a split-K matmul (MatmulTuned).
const minSlice = 512

// MatmulTuned fills the tile (TM, TN, TK) of a matmul key left at the
// default for an M×N output (M token rows, N weight rows), keeping enough
// workgroups in flight: 128×128 tiles only when they give at least 256
// workgroups, else 128×64 when that gives 128, else 64×64. On the H200
// (bench-kernels, q4_0, M = 512, GPU ms per dispatch, BENCH.md "Prefill
// tiles"): N = 512 (attn_k/v) 128×128 0.46 → 64×64 0.22; N = 2048
// (attn_q/output) 0.46 → 128×64 0.31; N = 2048, K = 8192 (ffn_down) 1.94 →
// 128×64 1.32; N = 8192 (ffn_gate/up) keeps 128×128 (0.74; 128×64 0.97).
// The 128×128 tile's 8×8 register block per thread is the most efficient
// per flop, but at 16 to 64 workgroups most of the GPU idles. M is the
// largest micro-batch the program is compiled for (or the logits rows of
// the lm head's matmul); up to 64 rows take 64×64 tiles. A key that sets any of
// TM, TN, TK is returned unchanged, as is a key of another op.
//
// Reductions that still give fewer than 256 workgroups are split over K
// (Key.SplitK, slices of at least minSlice) when the key has no bias:
// 128×128 tiles when the split reaches 256 workgroups that way, else the
// tile above with up to the same slices. Llama-1B (M = 512): ffn_down
// (K = 8192) and attn_q/output (K = 2048) take 128×128 tiles in 4 slices,
// attn_k/v (N = 512) 64×64 tiles in 4 slices (H100, q4_0 pp512 step:
// attn_k/v 127 → 61 µs + 7 µs split_sum, attn_q/output 199 → 174 + 9 µs;
// q4_k_m k/v 160 → 72 + 7; slices had to be 2048 long before).
func MatmulTuned(k Key, m, n, kdim int) Key {
	if k.Op != OpMatmul || k.TM != 0 || k.TN != 0 || k.TK != 0 || k.SplitK != 0 {
		return k
	}
	groups := func(tm, tn int) int { return ceilDiv(m, tm) * ceilDiv(n, tn) }
	split := func(g int) int {
		if k.Bias || g >= 256 {
			return 0
		}
		s := min(ceilDiv(256, g), kdim/minSlice)
		if s < 2 {
			return 0
		}
		return s
	}
	if s := split(groups(128, 128)); s > 0 && groups(128, 128)*s >= 256 && m > 64 {
		k.TM, k.TN, k.TK, k.SplitK = 128, 128, 8, s
		return k
	}
	switch {
	case m <= 64: // a 128-row tile would compute at least half padding
		k.TM, k.TN, k.TK = 64, 64, 16
	case groups(128, 128) >= 256:
		k.TM, k.TN, k.TK = 128, 128, 8
	case groups(128, 64) >= 128:
		k.TM, k.TN, k.TK = 128, 64, 16
	default:
		k.TM, k.TN, k.TK = 64, 64, 16
	}
	if m > 64 {
		k.SplitK = split(groups(k.TM, k.TN))
	}
	return k
}
