package shaders

import (
	"fmt"
	"strconv"

	"github.com/webgguf/webgguf/gguf"
)

// Op names a kernel family. Each op documents its bindings (in Kernel order),
// its Params struct and the meaning of Shape for its Dispatch.
type Op uint8

// The kernel families.
const (
	OpGetRows     Op = iota + 1 // embedding lookup with dequantization
	OpRMSNorm                   // RMSNorm with weight multiply, optional residual add
	OpRoPE                      // rotary position embedding, in place
	OpMatvec                    // decode matrix-vector product (optional epilogues)
	OpMatmul                    // prefill tiled matrix-matrix product
	OpAttnDecode                // flash-decoding split pass: one query per head
	OpAttnMerge                 // flash-decoding merge of the split partials
	OpAttnPrefill               // tiled causal attention for a batch of queries
	OpSiLUMul                   // y = silu(a) * b
	OpGELU                      // y = gelu(a), tanh approximation as ggml
	OpAdd                       // y = a + b
	OpScale                     // y = a * s
	OpKVWrite                   // copy new K and V rows into the cache
	OpArgmax                    // index of the largest logit
	OpTopK                      // the k largest logits, sorted
	OpRoPEKV                    // RoPE on q and k fused with the KV-cache write
	OpMatvecQKV                 // Q, K and V projections in one decode dispatch
	OpRepack                    // in-place rewrite of a weight into the packed layout
	OpSplitSum                  // y = sum of a split-K matmul's partial products
	OpGELUMul                   // y = gelu(a) * b (GeGLU)
	OpSiLU                      // y = silu(a)
	OpMul                       // y = a * b
	OpSoftcap                   // y = s * tanh(a / s)
	OpLayerNorm                 // LayerNorm with weight multiply, optional bias add
)

var opNames = map[Op]string{
	OpGetRows: "get_rows", OpRMSNorm: "rms_norm", OpRoPE: "rope", OpMatvec: "matvec",
	OpMatmul: "matmul", OpAttnDecode: "attn_decode", OpAttnMerge: "attn_merge",
	OpAttnPrefill: "attn_prefill", OpSiLUMul: "silu_mul", OpGELU: "gelu", OpAdd: "add",
	OpScale: "scale", OpKVWrite: "kv_write", OpArgmax: "argmax", OpTopK: "top_k",
	OpRoPEKV: "rope_kv", OpMatvecQKV: "matvec_qkv", OpRepack: "repack",
	OpSplitSum: "split_sum", OpGELUMul: "gelu_mul", OpSiLU: "silu", OpMul: "mul",
	OpSoftcap: "softcap", OpLayerNorm: "layer_norm",
}

// String returns the op's snake_case name, also its WGSL template name.
func (o Op) String() string {
	if s, ok := opNames[o]; ok {
		return s
	}
	return fmt.Sprintf("op(%d)", uint8(o))
}

// Key names one specialization of a kernel. Zero values of the tuning
// fields (WG, Rows, TM, TN, TK, Splits) mean "the default for this op";
// Build reports the resolved key in Kernel.Key. Two keys that resolve to the
// same value produce the same WGSL, so the resolved Key (via String) is a
// sound pipeline-cache key.
type Key struct {
	Op Op
	// Weight is the element type of the weight matrix (get_rows, matvec,
	// matmul): f32 f16 bf16 q4_0 q4_1 q5_0 q5_1 q8_0 q2_K q3_K q4_K q5_K q6_K
	// iq4_nl iq4_xs.
	Weight gguf.GGMLType
	// WeightK and WeightV are the K and V matrices' formats for
	// OpMatvecQKV (Weight is Q's); each may differ, as in Q4_K_M files.
	// On OpMatmul with QKV they may differ too (block formats only); there
	// the zero value (f32) means Q's format, and a key whose three formats
	// agree resolves to WeightK = WeightV = 0.
	WeightK, WeightV gguf.GGMLType
	// KV is the KV-cache element type (attention, kv_write): f32 or f16.
	// f16 caches are packed two per u32 whether or not the device has
	// shader-f16, so the buffer layout never depends on the device.
	KV gguf.GGMLType
	// F16: the device has shader-f16; f16 data is converted with native f16
	// casts instead of unpack2x16float. Arithmetic stays f32 either way.
	F16 bool
	// Subgroups: the device has subgroup operations. No kernel uses them yet
	// (wgpu-native v0.23 exposes no subgroup feature to test them with), so
	// Build rejects it rather than pretending.
	Subgroups bool
	// WG is the number of threads per workgroup (a power of two).
	WG int
	// Rows is the number of output rows per workgroup (matvec).
	Rows int
	// RPT is the number of rows each matvec thread computes, reusing every
	// x chunk it loads RPT times (at most 16); the WG threads form Rows/RPT
	// groups of WG*RPT/Rows threads.
	RPT int
	// XU is the number of 32-element units of x that matvec (block formats)
	// and matvec_qkv stage in workgroup memory per barrier round, a power of
	// two and a multiple of the threads per row group T = WG*RPT/Rows; each
	// round runs XU/T unit steps without a barrier between them. 0: T (one
	// step a round). On the H200 XU = 64 gains at K = 2048 with T = 32 and
	// loses on the lm head and with 64-thread workgroups (bench-kernels), so
	// MatvecTuned sets it per shape.
	XU int
	// TM, TN, TK are the output tile (rows of x, rows of W) and the K step
	// of the tiled matmul; TK is also the tiled prefill attention's keys a
	// tile (0: AttnTiledKeys) and, on OpAttnDecode with Coop, the wide
	// kernel's keys a tile (attn_decode_wide.wgsl: WG/TK threads a key;
	// 0: the Coop kernel, a thread a key).
	TM, TN, TK int
	// DB double-buffers the matmul's workgroup tiles: a K step computes from
	// one pair of x/W tiles while it stores the next step's (already loaded
	// into registers) into the other, so each step ends with one barrier
	// instead of two; the step's loops are unrolled in the WGSL, so every
	// accumulator and tile index is a constant. It doubles the workgroup
	// memory (TK a multiple of 4; (TM+TN)·TK·8 bytes within 16 KiB).
	DB bool
	// XVec reads the matmul's x rows as vec4s: one 16-byte load a staging
	// slot instead of four 4-byte ones, each with its own bounds test. It
	// needs K a multiple of 4 (rows and every split slice start on a
	// vector) and TK a multiple of 4; MatmulXVec sets it where K allows.
	// H200, 512×2048×8192 f16 128×128×8: a CUDA copy of the kernel ran
	// 30.6 → 36.4 TFLOP/s with it.
	XVec bool
	// SplitK splits a matmul's reduction into SplitK slices of K run as
	// separate workgroups (grid z), each writing its partial product to its
	// own M×N slice of y (slice stride in MatmulParams.Stride); split_sum
	// adds the slices. It gives a long-K, narrow-N product (ffn_down at
	// prefill) enough workgroups for large tiles. 0 or 1: no split. The
	// residual and the bias are added by slice 0. On
	// OpAttnPrefill it is the threads per query (a power of two up to 8),
	// each taking a share of every K/V tile, merged at the end (not with
	// Coop).
	SplitK int
	// HeadDim is the attention head size (attention, compile-time so the
	// per-thread accumulators have a constant size). On OpMatvecQKV a
	// non-zero HeadDim fuses RoPE (Neox and FreqFactors as for RoPE) and the
	// KV-cache write (KV: f32 or f16) into the epilogue (MatvecQKVParams).
	HeadDim int
	// Bias adds bias[n] to matvec/matmul outputs; Residual adds a residual
	// vector (matvec, matmul) or adds res to the input of RMSNorm and also
	// writes the sum out.
	Bias, Residual bool
	// PostAdd makes RMSNorm add res to its output instead of its input:
	// y = res + RMSNorm(x)·weight, the residual add after a post-norm
	// (Gemma 2 and 3 norm each block's output before adding it), in one
	// dispatch instead of rms_norm then add. It excludes Residual (the
	// pre-add form, which normalises x + res).
	PostAdd bool
	// MergeX, on OpMatvec, makes x the flash-decoding partials of an
	// attention (attn_decode's split pass: per head and split m, l and the
	// HeadDim unnormalised sums) and merges them while staging x, as
	// attn_merge would have into the attention output: the merge costs no
	// dispatch of its own. HeadDim is the attention's head size.
	MergeX bool
	// SwiGLU makes matvec (and the prefill matmul, 128-column tiles of 64
	// gate and 64 up rows) read a gate and an up matrix and write silu(g)*u
	// (act(g)*u with Act).
	SwiGLU bool
	// Act is the gate's activation of a SwiGLU matvec or matmul: ActSiLU
	// (the zero value, SwiGLU) or ActGELU (GeGLU). Build rejects it on any
	// other key, so a kernel never silently computes another activation.
	Act Act
	// QKV makes the prefill matmul read three matrices of one format and
	// K (the Q, K and V projections of one x) as one of Nq + Nk + Nv rows,
	// writing three outputs (or, split, partials that split_sum with QKV
	// scatters to them); see MatmulParams.
	QKV bool
	// Neox selects RoPE's NEOX pairing (i, i+n/2) instead of (2i, 2i+1);
	// FreqFactors divides each frequency by a per-pair factor (Llama 3 rope_freqs).
	Neox, FreqFactors bool
	// Group is attn_decode's GQA group: with Group > 1 one workgroup serves
	// the Group query heads sharing a KV head (Heads = KVHeads*Group), reading
	// the cache once for all of them. 0 or 1: one query head per workgroup.
	Group int
	// Coop selects attn_decode_coop.wgsl: each K/V tile's loads issued
	// together as vec4s (a thread's whole K row; for the V sum, key groups
	// of a vec4 of dims), not in rounds of a few. HeadDim/4 a power of two
	// up to WG. With Group > 1 (attn_decode_gqa.wgsl) a workgroup serves up
	// to 4 of the group's heads, their scores and softmax states as vector
	// lanes (larger groups take several workgroups a KV head). On
	// OpAttnPrefill it selects attn_prefill_tiled.wgsl: the 4 threads of a
	// query split each tile's keys for the scores, then each thread
	// accumulates p·V for a block of 4 queries × HeadDim/16 dims (HeadDim
	// 64 or 128, WG 64, 128 or 256; TK keys a tile).
	Coop bool
	// Prefetch (with Coop) issues each tile's first K and V loads before
	// the scores, the first tile's before q is staged: shorter chains, but
	// the loads stay live across the tile (fewer workgroups fit an SM), so
	// the runtime sets it for small grids only (compute/gpu attn_decode.go).
	Prefetch bool
	// NoSplit makes attn_decode run one workgroup per head over the whole
	// KV range and write the normalized output, with no attn_merge pass.
	NoSplit bool
	// TopK is the largest k the top_k kernel returns.
	TopK int
	// Merge selects top_k's second pass: one workgroup merging the sorted
	// lists its scan pass wrote, one per workgroup of the scan's grid
	// (Shape.Splits of them, at most TopKMaxSplits). See top_k.wgsl.
	Merge bool
	// Norm fuses an RMSNorm of x into matvec (any weight format) and
	// matvec_qkv: y = rn·(W·(x⊙nw)) with rn = 1/sqrt(mean(x²) + eps),
	// which equals W·RMSNorm(x, nw) because the product is linear in x. The
	// norm weight nw (f32, K) is the last binding; eps is in the params. It
	// saves a dispatch (and a write and read of the normed row) per norm.
	// On OpRoPEKV it RMS-normalises each q and k head row (HeadDim
	// elements, weights q_norm and k_norm the last bindings) before the
	// rotation: Qwen3's and Gemma 3's per-head norms (RoPEKVParams).
	Norm bool
	// Packed: every weight of the key whose type has a packed layout
	// (PackedTypes) is stored packed (see Pack) rather than in ggml block
	// order. The host packs a weight exactly when Packable says so and sets
	// Packed on the keys that read it; Build clears it when no weight of the
	// key has a packed layout, so it never splits the cache for nothing.
	Packed bool
	// Ragged, with Packed, says that the packed q4_0/q8_0 rows of the key's
	// weights are ragged (see Ragged: rows of K = 128 mod 256, a chunk of 4
	// blocks first); the host sets it with Packed from the weights' K.
	Ragged bool
	// OneW makes a SwiGLU or QKV matmul read all of its matrices through
	// the one binding w, each starting MatmulParams.Off[i] vectors into it
	// (gate, up; Q, K, V), instead of binding wu (wk, wv) apart: the
	// runtime binds the span of one buffer that holds them all. A staging
	// slot then picks its matrix by adding an offset, where with separate
	// bindings it branched between loads, which the driver could not
	// overlap with the step's FMAs (H200, Llama-1B F16 pp512 SwiGLU matmul
	// with one binding: 935 → 843 µs a layer). Plain formats with XVec
	// only (tmplData.WLoad: the offsets count its vectors).
	OneW bool
	// Window, on OpAttnDecode and OpAttnPrefill, is a sliding window: a
	// query at position p sees only the keys at p-Window+1..p (llama.cpp's
	// standard SWA). The kernels compute the key range from L or Pos0 and
	// visit only its tiles (decode splits the range, not [0, L)). 0: full
	// attention.
	Window int
	// Softcap, on OpAttnDecode and OpAttnPrefill, caps the scaled scores:
	// Softcap·tanh(s/Softcap) before the mask and the softmax (Gemma 2).
	// 0: none.
	Softcap float32
	// NonCausal makes OpAttnPrefill's queries see every position up to the
	// batch's last, Pos0+M-1 (encoders); with Window, keys after a query
	// are not masked by it.
	NonCausal bool
	// Ring indexes the KV cache modulo its length (Params' Ctx): position
	// p is row p mod Ctx (compute.NewRingCache), on OpKVWrite, OpRoPEKV,
	// OpMatvecQKV with HeadDim, OpAttnDecode and OpAttnPrefill.
	Ring bool
}

// String is a stable, unique spelling of the key, usable as a cache key.
func (k Key) String() string {
	return fmt.Sprintf("%s/w=%s,%s,%s/kv=%s/f16=%t/sg=%t/wg=%d/rows=%d/rpt=%d/xu=%d/tile=%dx%dx%d/db=%t/xvec=%t/splitk=%d/hd=%d/bias=%t/res=%t/swiglu=%t/qkv=%t/neox=%t/ff=%t/nosplit=%t/coop=%t/prefetch=%t/group=%d/topk=%d/merge=%t/norm=%t/packed=%t/onew=%t",
		k.Op, k.Weight, k.WeightK, k.WeightV, k.KV, k.F16, k.Subgroups, k.WG, k.Rows, k.RPT, k.XU, k.TM, k.TN, k.TK, k.DB, k.XVec, k.SplitK, k.HeadDim,
		k.Bias, k.Residual, k.SwiGLU, k.QKV, k.Neox, k.FreqFactors, k.NoSplit, k.Coop, k.Prefetch, k.Group, k.TopK, k.Merge, k.Norm, k.Packed, k.OneW) + k.attnString() + k.actString() + k.postAddString() + k.mergeXString() + k.raggedString()
}

// raggedString spells Ragged only when set, so that the other keys keep
// their spelling.
func (k Key) raggedString() string {
	if !k.Ragged {
		return ""
	}
	return "/ragged=true"
}

// postAddString spells PostAdd only when set, so that the other keys keep
// their spelling.
func (k Key) postAddString() string {
	if !k.PostAdd {
		return ""
	}
	return "/postadd=true"
}

// mergeXString spells MergeX only when set, so that the other keys keep
// their spelling.
func (k Key) mergeXString() string {
	if !k.MergeX {
		return ""
	}
	return "/mergex=true"
}

// actString spells Act only when it is not the zero value (SiLU), so that
// the SwiGLU keys keep their spelling.
func (k Key) actString() string {
	if k.Act == ActSiLU {
		return ""
	}
	return "/act=" + k.Act.String()
}

// Act is the activation of a gated (GLU) kernel.
type Act uint8

// Activations (Key.Act).
const (
	// ActSiLU is x·sigmoid(x): SwiGLU.
	ActSiLU Act = iota
	// ActGELU is ggml's tanh-approximated GELU,
	// 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))): GeGLU.
	ActGELU
)

// String returns the activation's name, also its WGSL function's name.
func (a Act) String() string {
	switch a {
	case ActSiLU:
		return "silu"
	case ActGELU:
		return "gelu"
	}
	return fmt.Sprintf("act(%d)", uint8(a))
}

// attnString spells the attention fields added after the rest, only when
// set, so that the keys of full causal attention keep their spelling.
func (k Key) attnString() string {
	if k.Window == 0 && k.Softcap == 0 && !k.NonCausal && !k.Ring {
		return ""
	}
	return fmt.Sprintf("/win=%d/cap=%s/nc=%t/ring=%t", k.Window, strconv.FormatFloat(float64(k.Softcap), 'g', -1, 32), k.NonCausal, k.Ring)
}

// WeightTypes lists the weight formats every weight-reading kernel supports.
var WeightTypes = []gguf.GGMLType{
	gguf.TypeF32, gguf.TypeF16, gguf.TypeBF16,
	gguf.TypeQ4_0, gguf.TypeQ4_1, gguf.TypeQ5_0, gguf.TypeQ5_1, gguf.TypeQ8_0,
	gguf.TypeQ2_K, gguf.TypeQ3_K, gguf.TypeQ4_K, gguf.TypeQ5_K, gguf.TypeQ6_K,
	gguf.TypeIQ4_NL, gguf.TypeIQ4_XS, gguf.TypeTQ1_0, gguf.TypeTQ2_0,
}
