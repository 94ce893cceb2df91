package shaders

import "github.com/webgguf/webgguf/gguf"

// MatvecTuned fills the workgroup shape (WG, Rows, RPT, and XU where it
// gains) of a matvec or matvec_qkv key left at the defaults with the
// fastest measured for an N×K weight on the H200 (bench-kernels -sweep
// -v; the other candidates were within a few percent or slower):
//
//   - N >= 32768 (the lm head), block formats: 128:16:2, x staged one step
//     a round (XU = T = 16; XU = 64 was 7% slower there): best for q6_K
//     and q8_0; packed q4_0 and q4_K take 128:32:4 (also T = 16, four rows
//     per thread, half the workgroups), for q4_0 5% faster than 128:16:2 on
//     the H200 (77.7 vs 81.4 µs) and 6% on an H100 (74.3 vs 78.8 µs), for
//     q4_K 3% on an H100 and 7% with the fused norm the decode lm head runs
//     with (85.5 vs 91.6 µs);
//   - SwiGLU (gate and up, block formats, K < 4096): 128:16:2 with XU = 64
//     (4 unit steps per round): 10-15% faster than the plain matvec's
//     choice at 8192×2048 for q4_0, q8_0 and q4_K, even for q6_K; packed
//     q4_0 and q8_0 take 256:16:2 (T = 32, XU = T), 2-5% faster on an
//     H100 in three separate device calls;
//   - 32-element block formats at N = 8192-like shapes with K < 4096
//     (ffn_gate/up): 128:16:4 with XU = 64 (two unit steps per barrier
//     round; 9% faster than XU = T); packed q4_0 and q8_0 again 256:16:2,
//     5-10% faster than 128:16:4:64 on an H100 (q4_0 11.6 vs 12.5 µs);
//   - other block-format shapes (K >= 4096 like ffn_down, N <= 4096 like
//     attn_output and the fused QKV, and the 256-element K-quants): 256:8:2,
//     64 threads per row so each thread's serial chain of units stays
//     short, and N/8 workgroups;
//   - plain formats, chosen end to end (Llama-1B F16 tg128 d0 on the H200,
//     tok/s, two rounds each; one shape swept with the others fixed;
//     webgguf bench --matvec-shape), where one-dispatch kernel timings had
//     chosen larger workgroups: SwiGLU 32:2:2, one warp a workgroup
//     (256:8:2 891, 64:4:4 902; then 64:4:4 908, 32:4:4 915, 32:2:2 929);
//     the lm head (N >= 32768) 32:4:4 (256:8:2 891 → 128:8:2 898; then
//     128:8:2 936, 32:4:4 944); the fused QKV when all three matrices are
//     plain (plainQKV) 128:4:4 (256:8:2 staged 887, 256:4:2 909, 256:8:4
//     915; then 256:8:4 936, 128:4:4 942); N <= 4096 with K >= 2048
//     (attn_output, ffn_down) 128:2:2 (256:2:1 910.5, 128:2:2 911.8);
//     else 256:4:1 (64 threads a row; H200 2026-11-27: 8192×2048 14.8 µs,
//     256:2:1 16.4).
//
// (XU is the kernels' x staging per barrier round, Key.XU.) Workgroups
// above maxWG threads are halved with their rows, keeping the threads per
// row and rows per thread: the runtime passes 128 on CPU adapters, where
// lavapipe crashed (SIGSEGV) running 256-thread matvecs in the parallel
// compute/gpu suite; on the H200 256:8:2 beats 128:4:2 by up to 25% at
// 3072×2048 (bench-kernels). A key that sets any of WG, Rows, RPT is returned
// unchanged, as is a key of another op.
func MatvecTuned(k Key, n, kdim, maxWG int) Key {
	if (k.Op != OpMatvec && k.Op != OpMatvecQKV) || k.WG != 0 || k.Rows != 0 || k.RPT != 0 {
		return k
	}
	pq := k.Op == OpMatvec && k.Packed && (k.Weight == gguf.TypeQ4_0 || k.Weight == gguf.TypeQ8_0)
	plain := k.Op == OpMatvec && k.Weight.BlockSize() == 1
	switch {
	case k.Op == OpMatvecQKV && plainQKV(k.Weight, k.WeightK, k.WeightV):
		k.WG, k.Rows, k.RPT = 128, 4, 4
	case plain && n >= 32768:
		k.WG, k.Rows, k.RPT = 32, 4, 4
	case plain && k.SwiGLU:
		k.WG, k.Rows, k.RPT = 32, 2, 2
	case plain && n <= 4096 && kdim >= 2048:
		k.WG, k.Rows, k.RPT = 128, 2, 2
	case plain:
		k.WG, k.Rows, k.RPT = 256, 4, 1
	case n >= 32768 && (k.Packed && k.Weight == gguf.TypeQ4_0 || k.Weight == gguf.TypeQ4_K):
		k.WG, k.Rows, k.RPT = 128, 32, 4
	case n >= 32768:
		k.WG, k.Rows, k.RPT = 128, 16, 2
	case pq && k.SwiGLU && k.Ragged:
		// Ragged rows (Gemma 3's K 1152, 36 units): 16 threads a row group
		// staging all of x in one round. H200, Gemma-3-1B tg128: q4_0 630
		// -> 653, q8_0 607 -> 623 against 256:16:2 (2026-12-02).
		k.WG, k.Rows, k.RPT, k.XU = 128, 16, 2, 64
	case pq && kdim < 4096 && (k.SwiGLU || n > 4096):
		k.WG, k.Rows, k.RPT = 256, 16, 2
	case k.SwiGLU && kdim < 4096:
		k.WG, k.Rows, k.RPT, k.XU = 128, 16, 2, 64
	case kdim < 4096 && n > 4096 && k.Weight.BlockSize() == 32:
		k.WG, k.Rows, k.RPT, k.XU = 128, 16, 4, 64
	default:
		k.WG, k.Rows, k.RPT = 256, 8, 2
	}
	for k.WG > maxWG && k.Rows > k.RPT && k.WG > 1 {
		k.WG, k.Rows = k.WG/2, k.Rows/2
	}
	return k
}
