package shaders

// MatvecTuned fills the workgroup shape (WG, Rows, RPT) of a matvec or
// matvec_qkv key left at the defaults with the fastest measured for an
// N×K weight on the H200 (BENCH.md, bench-kernels -sweep; the other
// candidates were within a few percent or slower everywhere):
//
//   - block formats, K >= 4096 (a 1B model's ffn_down) or N <= 4096
//     (attn_output, the fused QKV): 256:8:2, 64 threads per row so each
//     thread's serial chain of units stays short, and N/8 workgroups;
//   - block formats, N >= 32768 (the lm head): 128:32:4, x staged one
//     step a round (XU = T = 16: XU = 64 was 7% slower there);
//   - block formats otherwise (ffn_gate/up, N = 8192): 128:16:4 with
//     XU = 64 (two unit steps per barrier round; 9% faster than XU = T);
//   - plain formats: 256:8:2 for K >= 4096 or N >= 32768, else 128:8:2.
//
// (XU is the WGSL's x staging per barrier round, Key.XU.) A key that sets
// any of WG, Rows, RPT is returned unchanged, as is a key of another op.
func MatvecTuned(k Key, n, kdim int) Key {
	if (k.Op != OpMatvec && k.Op != OpMatvecQKV) || k.WG != 0 || k.Rows != 0 || k.RPT != 0 {
		return k
	}
	big := kdim >= 4096 || n >= 32768
	switch {
	case k.Op == OpMatvec && k.Weight.BlockSize() == 1 && big:
		k.WG, k.Rows, k.RPT = 256, 8, 2
	case k.Op == OpMatvec && k.Weight.BlockSize() == 1:
		k.WG, k.Rows, k.RPT = 128, 8, 2
	case kdim >= 4096 || n <= 4096:
		k.WG, k.Rows, k.RPT = 256, 8, 2
	case n >= 32768:
		k.WG, k.Rows, k.RPT = 128, 32, 4
	default:
		k.WG, k.Rows, k.RPT, k.XU = 128, 16, 4, 64
	}
	return k
}
