package shaders

// Split-K slices (MatmulTuned): 128×128 tiles take slices of at least
// minSlice128, the smaller tiles slices of at least minSlice.
const (
	minSlice128 = 256
	minSlice    = 128
)

// wave128 is how many 128×128 workgroups run at once on the H100/H200 (132
// SMs, two such workgroups each): a split past it starts a second, mostly
// idle wave (Qwen2.5-0.5B ffn_down 512×4864×896, H100: 9 slices = 252
// workgroups 157 µs, 10 slices = 280 workgroups 206 µs).
const wave128 = 264

// maxSplit is the most slices a key may have (the matmul spec's limit).
const maxSplit = 16

// MatmulTuned fills the tile (TM, TN, TK) of a matmul key left at the
// default for an M×N output (M token rows, N weight rows), keeping enough
// workgroups in flight: 128×128 tiles only when they give at least 256
// workgroups, else 128×64 when that gives 128, else 64×64 (H200
// bench-kernels, q4_0, M = 512: attn_k/v with N = 512 0.46 → 0.22 ms with
// 64×64 tiles; ffn_gate/up with N = 8192 keeps 128×128). The 128×128
// tile's 8×8 register block per thread is the most efficient per flop,
// but at 16 to 64 workgroups most of the GPU idles. M is the largest
// micro-batch the program is compiled for (or the logits rows of the lm
// head's matmul); up to 64 rows take 64×64 tiles. A key that sets any of
// TM, TN, TK is returned unchanged, as is a key of another op.
//
// Reductions that still give too few workgroups are split over K
// (Key.SplitK): 128×128 tiles when up to wave128 / workgroups slices of at
// least minSlice128 give 224 workgroups or more, else the tile above with
// up to 256 / workgroups slices of at least minSlice. The split_sum pass
// costs 7-9 µs, far less than the idle GPU it avoids (H100, q4_0 pp512
// step: Llama-1B attn_k/v 127 → 61 µs + 7 in 4 slices; Qwen2.5-0.5B
// attn_k/v 71 → 18 µs + 7.5 in 7).
func MatmulTuned(k Key, m, n, kdim int) Key {
	if k.Op != OpMatmul || k.TM != 0 || k.TN != 0 || k.TK != 0 || k.SplitK != 0 {
		return k
	}
	groups := func(tm, tn int) int { return ceilDiv(m, tm) * ceilDiv(n, tn) }
	if k.QKV && m > 64 {
		// The QKV matmul (n = Nq + Nk + Nv): 128×128 tiles split so that
		// the last wave of wave128 workgroups is nearly full (qkvSplit), as
		// a part-empty wave costs as much as a full one (H200 Llama-1B F16
		// pp512: 4 slices, 1.45 waves, 264 µs a layer; 5 slices, 1.82
		// waves, 224); small ones (Qwen2.5-0.5B) 64×64 in a few slices.
		if g := groups(128, 128); g >= 64 {
			k.TM, k.TN, k.TK = 128, 128, 8
			k.SplitK = qkvSplit(g, kdim)
			return k
		}
		k.TM, k.TN, k.TK = 64, 64, 16
		if s := min(ceilDiv(512, groups(64, 64)), kdim/minSlice, maxSplit); s >= 2 {
			k.SplitK = s
		}
		return k
	}
	if k.SwiGLU { // n = 2·rows; 128 columns pair gate and up; never split
		k.TM, k.TN, k.TK = 128, 128, 8
		if m <= 64 {
			k.TM, k.TK = 64, 16
		}
		return k
	}
	if g := groups(128, 128); g < 256 && m > 64 {
		if s := min(wave128/g, kdim/minSlice128, maxSplit); s >= 2 && g*s >= 224 {
			k.TM, k.TN, k.TK, k.SplitK = 128, 128, 8, s
			return k
		}
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
	if g := groups(k.TM, k.TN); m > 64 && g < 256 {
		if s := min(ceilDiv(256, g), kdim/minSlice, maxSplit); s >= 2 {
			k.SplitK = s
		}
	}
	return k
}

// MatmulDB returns matmul key k double-buffered (Key.DB) where its tile
// allows: TK a multiple of 4, halved (down to 4) until both tiles' two
// buffers fit WebGPU's default 16 KiB of workgroup memory; 128×64×16
// becomes 128×64×8. Keys of other ops and tiles that cannot be
// double-buffered are returned unchanged.
//
// H200, bench-kernels GFLOP/s at 512×2048×8192 128×128×8 with the vec4 x
// reads (Key.XVec), two runs: f16 32.5 → 33.1k, packed q4_0 34.8 → 34.9k,
// q4_K 32.6 → 32.7k. With the plain formats' raw weight staging (WLoad)
// single-buffered tiles ran as fast or faster (f16 39.8 against 39.3k),
// and the runtime (gpu matmulDB) keeps DB for a plain format's QKV matmul
// alone, leaving it off for block formats, where it is within noise.
func MatmulDB(k Key) Key {
	if k.Op != OpMatmul || k.DB {
		return k
	}
	tm, tn, tk := k.TM, k.TN, k.TK
	if tm == 0 {
		tm, tn, tk = 128, 128, 8 // the matmul's default tile (spec.go)
	}
	for tk > 4 && tk%8 == 0 && (tm+tn)*tk*8 > maxWorkgroupBytes {
		tk /= 2
	}
	if tk%4 != 0 || (tm+tn)*tk*8 > maxWorkgroupBytes {
		return k
	}
	k.TM, k.TN, k.TK, k.DB = tm, tn, tk, true
	return k
}

// MatmulXVec gives a matmul key vec4 x reads (Key.XVec) when the
// reduction length kdim is a multiple of 4 and the key's tile (or the
// default 128×128×8) stages 4 k a slot. Keys it cannot serve come back
// unchanged.
func MatmulXVec(k Key, kdim int) Key {
	if k.Op != OpMatmul || kdim <= 0 || kdim%4 != 0 || k.TK%4 != 0 { // TK 0: the default, 8
		return k
	}
	k.XVec = true
	return k
}

// qkvSplit returns the slices of a QKV matmul of g 128×128 tiles over
// reduction length kdim: the fewest, from 2, whose workgroups fill their
// last wave of wave128 to at least 85% (a wave ending mostly empty costs
// nearly a whole one), within maxSplit slices of at least minSlice128;
// failing that the most slices allowed (0 when under 2). Llama-3.2-1B
// (3072×2048, g = 96 at M = 512): 5 slices, 480 workgroups, 91% of the
// second wave (4 slices: 73%; 8: 97%, but each slice is short and
// split_sum reads twice the partials).
func qkvSplit(g, kdim int) int {
	most := min(maxSplit, kdim/minSlice128)
	for s := 2; s <= most; s++ {
		waves := ceilDiv(g*s, wave128)
		if 100*g*s >= 85*waves*wave128 {
			return s
		}
	}
	if most < 2 {
		return 0
	}
	return most
}
