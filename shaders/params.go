package shaders

import (
	"encoding/binary"
	"math"
)

// Params is the uniform block of one dispatch. Every op's Params type is a
// struct of 4-byte fields laid out exactly like its WGSL struct Params.
type Params interface {
	// Bytes is the little-endian uniform data, padded to 16 bytes.
	Bytes() []byte
}

func pack(words ...uint32) []byte {
	n := (len(words) + 3) / 4 * 4
	b := make([]byte, 4*n)
	for i, w := range words {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	return b
}

func f32(v float32) uint32 { return math.Float32bits(v) }

// GetRowsParams: y[i][:] = dequant(W[ids[i]][:]), i < M. Rows is the number
// of rows in W; an id >= Rows yields a zero row instead of an out-of-range read.
// Shape for Dispatch: M.
//
// A table split by rows across bindings (compute/gpu's weight parts) is read
// by one dispatch per part: W then holds rows [First, First+Rows) of a table
// of Total rows, and the dispatch writes only the rows i whose id falls in
// its range, plus, in the part with First = 0, zero rows for ids >= Total.
// With First = Total = 0 the dispatch reads the whole table, as above.
type GetRowsParams struct{ K, M, Rows, First, Total uint32 }

// Bytes implements Params.
func (p GetRowsParams) Bytes() []byte { return pack(p.K, p.M, p.Rows, p.First, p.Total) }

// MatvecParams: y[n] = W[n][:K]·x (+ epilogue), n < N. Shape: N.
// Bindings: params, w, x, y, then w_up (SwiGLU), bias, res, norm as the key
// enables them. Eps is the fused RMSNorm's epsilon (Key.Norm).
type MatvecParams struct {
	K, N uint32
	Eps  float32
	// EpsPost is the post-norm's epsilon with Key.PostAdd.
	EpsPost float32
	// Splits is the partials' split count with Key.MergeX (x then holds
	// K/HeadDim heads of Splits partials each).
	Splits uint32
}

// Bytes implements Params.
func (p MatvecParams) Bytes() []byte {
	if p.Splits > 0 {
		return pack(p.K, p.N, f32(p.Eps), f32(p.EpsPost), p.Splits)
	}
	return pack(p.K, p.N, f32(p.Eps), f32(p.EpsPost))
}

// MatmulParams: y[m][n] = x[m][:K]·W[n][:K] (+ bias[n]) (+ res[m][n]), for
// m < M, n < N. Shape: M, N. Bindings: params, w, x, y, [bias], [res].
// With Key.SplitK, slice z of y starts at element z·Stride.
//
// With Key.QKV, N = Nq + Nk + Nv columns: rows of W (Q), then of wk, then
// of wv. Bindings: params, w, x, y, [bias], wk, wv, [bias_k, bias_v], and
// unsplit yk, yv: y, yk, yv get the M×Nq, M×Nk, M×Nv products (+ biases).
// Split, y holds the slices of the M×N partials (bias in slice 0) for
// split_sum with Key.QKV.
//
// With Key.OneW, Off gives where each matrix (SwiGLU: gate, up; QKV: Q, K,
// V) starts in w, in w's vectors (4 elements: 8 bytes for f16 and bf16,
// 16 for f32); wu (wk, wv) are not bound.
type MatmulParams struct {
	M, N, K, Stride, Nq, Nk uint32
	Off                     [3]uint32
}

// Bytes implements Params.
func (p MatmulParams) Bytes() []byte {
	return pack(p.M, p.N, p.K, p.Stride, p.Nq, p.Nk, p.Off[0], p.Off[1], p.Off[2])
}

// SplitSumParams: y[i] = Σ_{z < Key.SplitK} part[z·Stride + i] for i < N
// (the M×N elements of a split-K matmul's output). Shape: N. Bindings:
// params, part, y.
//
// With Key.QKV the sums are a QKV matmul's M×Cols outputs (Cols = Nq + Nk +
// Nv): bindings params, part, y, yk, yv; columns n < Nq go to y (M×Nq),
// then Nk to yk, the rest to yv.
type SplitSumParams struct{ N, Stride, Cols, Nq, Nk uint32 }

// Bytes implements Params.
func (p SplitSumParams) Bytes() []byte { return pack(p.N, p.Stride, p.Cols, p.Nq, p.Nk) }

// RMSNormParams: for each of M rows of K values h = x (+ res), written to
// sum when Residual; y = h / sqrt(mean(h²) + Eps) * weight, plus res when
// PostAdd (h = x then). Shape: M. Bindings: params, x, [res], weight, y,
// [sum] (sum with Residual only).
type RMSNormParams struct {
	K, M uint32
	Eps  float32
}

// Bytes implements Params.
func (p RMSNormParams) Bytes() []byte { return pack(p.K, p.M, f32(p.Eps)) }

// LayerNormParams: for each of M rows of K values, y = (x - mean(x)) /
// sqrt(var(x) + Eps) · weight (+ bias with Key.Bias), var the population
// variance. Shape: M. Bindings: params, x, weight, [bias], y.
type LayerNormParams struct {
	K, M uint32
	Eps  float32
}

// Bytes implements Params.
func (p LayerNormParams) Bytes() []byte { return pack(p.K, p.M, f32(p.Eps)) }

// RoPEParams rotates x[M][Heads][HeadDim] in place: token i is at position
// Pos0+i; the first NRot dims of each head are rotated by angle
// pos·FreqScale·FreqBase^(-2j/NRot) (divided by freq_factors[j] when the key
// has FreqFactors), the rest are left alone. Shape: M, Heads, K = NRot.
type RoPEParams struct {
	M, Heads, HeadDim, NRot, Pos0 uint32
	FreqBase, FreqScale           float32
	// AttnFactor multiplies the rotated pairs (ggml's attn_factor); 0
	// is 1. The same in RoPEKVParams and MatvecQKVParams.
	AttnFactor float32
}

// mscale is an AttnFactor as the shaders take it: 0 is 1.
func mscale(f float32) uint32 {
	if f == 0 {
		f = 1
	}
	return f32(f)
}

// Bytes implements Params.
func (p RoPEParams) Bytes() []byte {
	return pack(p.M, p.Heads, p.HeadDim, p.NRot, p.Pos0, f32(p.FreqBase), f32(p.FreqScale), mscale(p.AttnFactor))
}

// EltwiseParams: N elements; Scale is the factor of OpScale and the cap
// of OpSoftcap. Shape: N. Bindings: params, a, [b], y (b for silu_mul,
// gelu_mul, add and mul).
type EltwiseParams struct {
	N     uint32
	Scale float32
}

// Bytes implements Params.
func (p EltwiseParams) Bytes() []byte { return pack(p.N, f32(p.Scale)) }

// KVWriteParams copies k[M][KVHeads][HeadDim] and v likewise (f32) into
// caches laid out [KVHeads][Ctx][HeadDim] (key's KV type) at positions
// Pos0..Pos0+M-1 (with the key's Ring, rows (Pos0+i) mod Ctx). HeadDim
// must be even. Shape: M, KVHeads, K = HeadDim.
type KVWriteParams struct{ M, KVHeads, HeadDim, Pos0, Ctx uint32 }

// Bytes implements Params.
func (p KVWriteParams) Bytes() []byte { return pack(p.M, p.KVHeads, p.HeadDim, p.Pos0, p.Ctx) }

// AttnDecodeParams: one query per head, q[Heads][HeadDim] (f32), attends to
// cache positions [0, L) of KV head h/(Heads/KVHeads); the range is cut in
// Splits parts, each writing (max, sum, acc[HeadDim]) to
// partial[h][split][HeadDim+2]. Scale multiplies q·k. Shape: Heads, Splits.
// With the key's NoSplit, Splits must be 1 and the last binding is the
// normalized output out[Heads][HeadDim] instead. With the key's Group > 1,
// Heads must be KVHeads*Group and Shape also needs KVHeads. With the key's
// Window the range is [max(0, L-Window), L), split likewise; with Ring
// position t is cache row t mod Ctx; Softcap caps the scaled scores.
type AttnDecodeParams struct {
	Heads, KVHeads, L, Ctx, Splits uint32
	Scale                          float32
}

// Bytes implements Params.
func (p AttnDecodeParams) Bytes() []byte {
	return pack(p.Heads, p.KVHeads, p.L, p.Ctx, p.Splits, f32(p.Scale))
}

// AttnMergeParams combines partial[Heads][Splits][HeadDim+2] into
// out[Heads][HeadDim]. Shape: Heads.
type AttnMergeParams struct{ Heads, Splits uint32 }

// Bytes implements Params.
func (p AttnMergeParams) Bytes() []byte { return pack(p.Heads, p.Splits) }

// AttnPrefillParams: queries q[M][Heads][HeadDim] at positions Pos0+i attend
// causally to cache positions [0, Pos0+i]; out has q's layout. The key's
// Window starts the range at Pos0+i-Window+1, NonCausal ends it at
// Pos0+M-1, Ring reads position t from row t mod Ctx, Softcap caps the
// scaled scores. Shape: M, Heads.
type AttnPrefillParams struct {
	M, Heads, KVHeads, Pos0, Ctx uint32
	Scale                        float32
}

// Bytes implements Params.
func (p AttnPrefillParams) Bytes() []byte {
	return pack(p.M, p.Heads, p.KVHeads, p.Pos0, p.Ctx, f32(p.Scale))
}

// ArgmaxParams: out[0] = index of the largest of x[:N] (the lowest index on
// ties, NaN never wins), out[1] = its f32 bits. Shape: none.
type ArgmaxParams struct{ N uint32 }

// Bytes implements Params.
func (p ArgmaxParams) Bytes() []byte { return pack(p.N) }

// TopKParams: out[0:K] = indices of the K largest of x[:N] in descending
// order (lower index first on ties), out[TopK:TopK+K] their f32 bits, where
// TopK is the key's capacity and K <= TopK, K <= N. Shape: none.
//
// Split in two passes (top_k.wgsl): the scan pass with Shape.Splits = G
// writes that list for each of G contiguous chunks of x at out[g*2*TopK:]
// (NONE = 0xffffffff indices past a chunk's non-NaN elements); the merge
// pass (Key.Merge) takes those G lists as x, with N = G, and writes the
// answer at out[0:2*TopK]. TopKSplits picks G.
type TopKParams struct{ N, K uint32 }

// TopKMaxSplits is the most lists the top_k merge pass takes (its
// workgroup size: one thread per list). 128, not 256: lavapipe has
// crashed running 256-thread workgroups in the parallel test suite
// (shaders.MatvecTuned), and 128 scan workgroups of ~1000 logits still
// keep an H100 busy.
const TopKMaxSplits = 128

// topKChunk is the shortest chunk worth a scan workgroup of its own: 4
// elements per thread of a 128-thread workgroup, whose k pop rounds then
// cost more than its scan.
const topKChunk = 512

// TopKSplits is the scan pass's workgroup count for n elements: one per
// topKChunk elements, at most TopKMaxSplits (1: no merge pass needed).
func TopKSplits(n int) int {
	return max(1, min(TopKMaxSplits, (n+topKChunk-1)/topKChunk))
}

// Bytes implements Params.
func (p TopKParams) Bytes() []byte { return pack(p.N, p.K) }

// RoPEKVParams: RoPE (as RoPEParams) on q[M][Heads][HeadDim] in place and on
// k[M][KVHeads][HeadDim], whose rotated rows go to k_cache and v's rows to
// v_cache ([KVHeads][Ctx][HeadDim], the key's KV type) at positions
// Pos0..Pos0+M-1 (rows mod Ctx with the key's Ring); k and v are left
// unchanged. HeadDim and NRot even.
// With Key.Norm each q and k head row is RMS-normalised first (over all
// HeadDim elements, epsilon Eps, times q_norm or k_norm, each HeadDim
// long), then rotated (Qwen3's and Gemma 3's q/k norms); HeadDim at most
// RoPEKVNormMaxHeadDim. Eps is ignored without Norm.
// Shape: M, Heads, KVHeads, K = NRot, N = HeadDim.
// Bindings: params, q, k, v, k_cache, v_cache, [freq_factors], [q_norm, k_norm].
type RoPEKVParams struct {
	M, Heads, KVHeads, HeadDim, NRot, Pos0, Ctx uint32
	FreqBase, FreqScale                         float32
	Eps                                         float32
	AttnFactor                                  float32
}

// RoPEKVNormMaxHeadDim is the longest head rope_kv's Norm variant takes
// (it stages the normed row in workgroup memory).
const RoPEKVNormMaxHeadDim = 256

// Bytes implements Params.
func (p RoPEKVParams) Bytes() []byte {
	return pack(p.M, p.Heads, p.KVHeads, p.HeadDim, p.NRot, p.Pos0, p.Ctx, f32(p.FreqBase), f32(p.FreqScale), f32(p.Eps), mscale(p.AttnFactor))
}

// MatvecQKVParams: y_q = W_q·x, y_k = W_k·x, y_v = W_v·x (+ biases) in one
// dispatch; W_q has Nq rows, W_k Nk, W_v Nv, all of length K (a multiple of
// 32). Nq and Nk must be multiples of the key's RPT. Shape: N = Nq+Nk+Nv.
// Bindings: params, w_q, x, y_q, w_k, y_k, w_v, y_v, [bias_q, bias_k, bias_v],
// [norm], [k_cache, v_cache, [freq_factors]], [post_res, post_norm,
// post_out] (Key.PostAdd, as MatvecParams). Eps is the fused RMSNorm's
// epsilon (Key.Norm). With Key.HeadDim (RoPE and the KV write fused in,
// normal pairing, f32 caches [KVHeads][Ctx][HeadDim]), q and k are rotated
// as RoPEParams with NRot, Pos0, FreqBase and FreqScale, q is written
// rotated, k and v unrotated, and k' and v also into the caches at Pos0
// (row Pos0 mod Ctx with the key's Ring).
type MatvecQKVParams struct {
	K, Nq, Nk, Nv       uint32
	Eps                 float32
	NRot, Pos0, Ctx     uint32
	FreqBase, FreqScale float32
	AttnFactor          float32
	// EpsPost is the post-norm's epsilon with Key.PostAdd.
	EpsPost float32
}

// Bytes implements Params.
func (p MatvecQKVParams) Bytes() []byte {
	return pack(p.K, p.Nq, p.Nk, p.Nv, f32(p.Eps), p.NRot, p.Pos0, p.Ctx, f32(p.FreqBase), f32(p.FreqScale), mscale(p.AttnFactor), f32(p.EpsPost))
}
