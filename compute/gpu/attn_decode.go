package gpu

import (
	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/shaders"
)

// DecodeAttention chooses the single-token attention kernels of the
// programs a Backend compiles (SetDecodeAttention).
//
// A decode step attends from one query row to the L = Pos0+1 cached
// positions. Flash-decoding (attn_decode split over the KV range, then
// attn_merge) keeps the GPU busy at any L: Splits×Heads workgroups, each
// over L/Splits keys. The one-pass kernel (shaders Key.NoSplit: one
// workgroup per head over the whole range, writing the normalized output)
// saves the merge dispatch but runs only Heads workgroups (far fewer than
// a large GPU's SMs), each walking the keys one tile (its workgroup size,
// ShortWG: 128 keys by default) after another. So the one-pass kernel is
// as fast as one split while the range fits one tile and then costs a
// serial tile per tile of keys, each about the cost of the merge dispatch
// it saved (H200 bench-kernels, 64-key tiles:
// one split of ≤ 8 keys 13.0 µs, a do-nothing kernel 6.0 µs, so ≈ 7 µs a
// tile; attn_merge 6.9 µs). Each program therefore records both variants
// into separate tapes and picks one per step by L.
type DecodeAttention struct {
	// ShortMax is the longest range (Pos0+1) that uses the one-pass kernel;
	// longer ones use split + merge. 0 disables the one-pass kernel (it is
	// still used when the cache is short enough for a single split, where
	// the merge is pure overhead).
	ShortMax int
	// ShortWG is the one-pass kernel's workgroup size, which is also its
	// keys per tile (shaders Key.WG of attn_decode with NoSplit and Coop).
	// 0: the kernel's default, 64.
	ShortWG int
	// Group makes the one-pass kernel serve the query heads sharing a KV
	// head from one workgroup (shaders Key.Group), reading each cached row
	// once for the group instead of once per head. It trades workgroups
	// (KVHeads instead of Heads) and a longer serial chain (one softmax
	// reduction per head of the group) for bytes, which pays only where
	// the short kernel is bandwidth-bound; it is off by default because at
	// short ranges it is not (the range of one KV head is L×HeadDim×8
	// bytes, 32 KiB at L = 64).
	Group bool
	// GroupSplit makes the split kernel serve each KV head's query group
	// from workgroups of up to 4 of its heads where the Coop kernel applies
	// (shaders attn_decode_gqa.wgsl: the heads as vector lanes, so a tile
	// costs one head's barriers): each cached row is loaded once for 4
	// heads, on a grid of KVHeads·⌈G/4⌉ instead of Heads columns. On by
	// default: it pays most at depth (H100, Llama-1B q4_0 tg128 at depth
	// 2048 804-810 → 897-898 tok/s; Qwen3-0.6B 483 → 539).
	GroupSplit bool
	// NoCoop turns off attn_decode's Coop variant (shaders Key.Coop: each
	// tile's loads issued together), which the kernels use wherever it
	// applies (one query head per workgroup, HeadDim/4 a power of two).
	NoCoop bool
	// WideFrom is the shortest range from which a split + merge step runs
	// the wide split count (decodeSplits). 0: the default, wideFrom, on
	// hardware adapters and never on software ones; > 0: from this range
	// on any adapter (tests).
	WideFrom int
	// MaxSplits caps the wide split count (0: 128).
	MaxSplits int
	// MQASplit makes MQA layers with wide heads (one KV head, head_dim ≥
	// 128: Gemma 3 270M/1B, 4 query heads of 256) run split + merge at
	// every range with one query head a workgroup: the one-pass kernel
	// and GroupSplit would give them 4 and 1 workgroups a split. H200,
	// Gemma-3-1B-shaped q4_0 tg128, same binary and call: d0 374 → 390
	// tok/s, d4096 336 → 351. Layers with heads of 256 and several KV
	// heads (Gemma 2 2B: 8 query heads on 4 KV heads) take the same path:
	// the one-pass kernel gave them 8 workgroups of 30 µs at depth 0.
	MQASplit bool
	// WideTK, where MQASplit applies, runs those layers on the wide kernel
	// (shaders attn_decode_wide.wgsl: WideWG threads, WideTK keys a tile,
	// WideWG/WideTK threads a key), whose tile loads go out in one round
	// where the Coop kernel, at head size 256, takes four for K and four
	// for V. 0: the Coop kernel.
	WideTK int
	// WideWG is the wide kernel's workgroup size (0: 256).
	WideWG int
	// WideShortMax, where the wide kernel runs, is the longest range that
	// takes its one-pass form (no merge) instead of split + merge; 0:
	// always split.
	WideShortMax int
}

// wideFrom is the default DecodeAttention.WideFrom. Models with few query
// heads give flash-decoding few workgroups at 16 splits (Qwen2.5-0.5B: 14
// heads, 224): from this range on, such a model's steps run up to 32 splits
// of about one 64-key tile each. H100, Qwen2.5-0.5B q4_0 tg128 d2048
// (nCtx 2177: 16 → 32 splits) 632 → 667 tok/s (same run, best of 2 × 2);
// below it the 16-split count stays, since 32 splits for every step cost
// ~1.5% at tg128 d0 (tiny chunks, a longer merge). Llama-1B (32 heads)
// lost ~2% at d2048 with 32 before attn_decode's Coop variant and gains
// ~1% with it (H100 q4_0 tg128 d2048 803, 801 → 809, 811 tok/s), so the
// rule no longer depends on the head count.
const wideFrom = 1024

// decodeSplits returns the flash-decoding grid's split count and the count
// of steps shorter than the wide threshold (equal when there is none): 16
// splits at most, one per 128 positions of the cache, or for the wide
// count 128 at most, one per 64 positions: at depth 4096 the 32-split cap
// left each split 128+ keys and few workgroups for heads of 128–256.
func decodeSplits(nCtx int, g *compute.Graph, cfg DecodeAttention, fallback bool) (grid, base, from int) {
	base = min(16, max(1, (nCtx+127)/128))
	attn := false
	for _, n := range g.Nodes {
		attn = attn || n.Op == compute.OpAttention
	}
	from = cfg.WideFrom
	if from == 0 {
		if fallback || !attn {
			return base, base, 0
		}
		from = wideFrom
	}
	if nCtx < from { // no step reaches it
		return base, base, 0
	}
	maxSplits := cfg.MaxSplits
	if maxSplits <= 0 {
		maxSplits = 128
	}
	return max(base, min(maxSplits, (nCtx+63)/64)), base, from
}

// splitsFor is the split count of a split + merge step attending to L
// positions: the grid's last columns return at once when it is smaller.
func (p *program) splitsFor(L int) int {
	if p.splitsFrom > 0 && L >= p.splitsFrom {
		return p.splits
	}
	return p.splitsBase
}

// prefetchGrid is the largest attn_decode grid (workgroups) that runs the
// Coop kernel's Prefetch form: with few workgroups each one's chain of load
// latencies is the step's, and issuing K and V together shortens it; with
// many, the registers the early loads hold cost occupancy. H100, Llama-1B
// q4_0 tg128 (bench, same call): d0 (grids of 32 and 64) 997, 998 →
// 1030, 1021 tok/s; d2048 (1024) 811, 809 → 774, 772 with it everywhere.
const prefetchGrid = 256

// DefaultDecodeAttention runs the one-pass kernel up to one 128-key tile
// (ShortWG 128): up to there it does in one tile what a split does and
// saves the merge; past it each extra serial tile costs about what the
// merge saves. With 64-key tiles (the kernel's default size) the second
// tile ate the gain: H200, tg128 d0 (L = 1..128), three alternated rounds,
// ShortMax 64 → 128 with 128-key tiles: Llama-1B Q4_0 1062.5, 1068.5,
// 1065.6 → 1087.0, 1091.3, 1090.4 tok/s, F16 869.1, 870.4, 869.6 → 887.5,
// 886.5, 885.6, Qwen2.5-0.5B Q4_0 942.6, 943.2, 939.9 → 972.8, 971.9,
// 972.7; ShortMax 128 with 64-key tiles 1068 / 872 / 948. The split
// kernel serves GQA groups of 2 to 4 heads from one workgroup
// (GroupSplit).
var DefaultDecodeAttention = DecodeAttention{ShortMax: 128, ShortWG: 128, GroupSplit: true, MQASplit: true, WideTK: 16}

// SetDecodeAttention sets the decode attention choice of programs compiled
// afterwards (tests and tuning; the default is DefaultDecodeAttention).
func (b *Backend) SetDecodeAttention(a DecodeAttention) {
	b.mu.Lock()
	b.attn = &a
	b.mu.Unlock()
}

func (b *Backend) decodeAttention() DecodeAttention {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.attn == nil {
		return DefaultDecodeAttention
	}
	return *b.attn
}

// Attention tape variants: an op recorded into every tape, only into the
// short-range one, or only into the long-range one.
const (
	attnAny uint8 = iota
	attnShort
	attnLong
)

// attnDecode lowers one query row's attention: the one-pass kernel for
// short ranges and flash-decoding (split, merge) for long ones, each
// marked with its tape variant; with a single split only the one-pass
// kernel.
func (c *compiler) attnDecode(n *compute.Node) {
	q, dst, a := n.Src[0], n.Dst, n.Attn
	p := c.p
	nCtx, splits := n.Src[1].Ne[1], p.splits // this layer's cache length (a ring's may be shorter)
	kc, vc := c.cache(n.Src[1]), c.cache(n.Src[2])
	// A window's range is at most Window positions: its split count is
	// that of the range, not of L (attnRange).
	win := a.Window
	cfg := c.b.decodeAttention()
	coop := !cfg.NoCoop && shaders.CoopAttn(a.HeadDim, 1, 0) && c.fitsWorkgroup(shaders.Key{Op: shaders.OpAttnDecode, KV: c.kv, HeadDim: a.HeadDim, Coop: true})
	var wide shaders.Key // the wide kernel's split key, where it runs
	if cfg.MQASplit && (a.NHeadKV == 1 && a.HeadDim >= 128 || a.HeadDim >= 256) {
		cfg.ShortMax, cfg.Group, cfg.GroupSplit = 0, false, false
		wg := cfg.WideWG
		if wg == 0 {
			wg = 256
		}
		if k := (shaders.Key{Op: shaders.OpAttnDecode, KV: c.kv, HeadDim: a.HeadDim, Coop: true, WG: wg, TK: cfg.WideTK}); coop && cfg.WideTK > 0 &&
			shaders.WideAttn(a.HeadDim, wg, cfg.WideTK) && wg <= int(c.b.d.Limits().MaxComputeInvocationsPerWorkgroup) && c.fitsWorkgroup(k) {
			wide = k
			cfg.ShortMax = cfg.WideShortMax
		}
	}
	oneOnly := splits == 1 // the merge would only copy
	if cfg.ShortMax > 0 || oneOnly {
		key := shaders.Key{Op: shaders.OpAttnDecode, KV: c.kv, HeadDim: a.HeadDim, NoSplit: true, WG: cfg.ShortWG}
		if wide.TK > 0 {
			key = wide
			key.NoSplit = true
		}
		if g := a.NHead / a.NHeadKV; cfg.Group && g > 1 && g <= 16 && a.NHead%a.NHeadKV == 0 && c.fitsWorkgroup(shaders.Key{Op: key.Op, KV: key.KV, HeadDim: key.HeadDim, NoSplit: true, Group: g}) {
			key.Group = g
		}
		if wide.TK == 0 {
			key.Coop = coop && (key.Group <= 1 || shaders.CoopAttn(a.HeadDim, key.Group, 0) && c.fitsWorkgroup(shaders.Key{Op: key.Op, KV: key.KV, HeadDim: key.HeadDim, NoSplit: true, Group: key.Group, Coop: true}))
			key.Prefetch = key.Coop && key.Group <= 1 && a.NHead <= prefetchGrid
		}
		attnKey(&key, n)
		ds := c.dispatch(key, shaders.Shape{Heads: a.NHead, KVHeads: a.NHeadKV}, true,
			func(s *compute.Step) shaders.Params {
				return shaders.AttnDecodeParams{Heads: u32(a.NHead), KVHeads: u32(a.NHeadKV), L: u32(s.Pos0 + 1), Ctx: u32(nCtx), Splits: 1, Scale: a.Scale}
			}, c.act(q), kc, vc, c.act(dst))
		if oneOnly {
			return
		}
		variant(ds, attnShort)
		p.shortMax = cfg.ShortMax
	}
	part := bref{buf: p.partial, size: pad16(uint64(a.NHead*splits*(a.HeadDim+2)) * 4)}
	skey := shaders.Key{Op: shaders.OpAttnDecode, KV: c.kv, HeadDim: a.HeadDim, Coop: coop, Prefetch: coop && splits*a.NHead <= prefetchGrid}
	if g := a.NHead / a.NHeadKV; cfg.GroupSplit && coop && g > 1 && a.NHead%a.NHeadKV == 0 && shaders.CoopAttn(a.HeadDim, g, 0) {
		gkey := shaders.Key{Op: skey.Op, KV: skey.KV, HeadDim: skey.HeadDim, Coop: true, Group: g}
		if c.fitsWorkgroup(gkey) {
			skey = gkey
		}
	}
	if wide.TK > 0 {
		skey = wide
	}
	attnKey(&skey, n)
	variant(c.dispatch(skey, shaders.Shape{Heads: a.NHead, KVHeads: a.NHeadKV, Splits: splits}, true,
		func(s *compute.Step) shaders.Params {
			return shaders.AttnDecodeParams{Heads: u32(a.NHead), KVHeads: u32(a.NHeadKV), L: u32(s.Pos0 + 1), Ctx: u32(nCtx), Splits: u32(p.splitsFor(attnRange(s.Pos0+1, win))), Scale: a.Scale}
		}, c.act(q), kc, vc, part), attnLong)
	if wide.TK > 0 && cfg.ShortMax == 0 && c.mergeXTarget(n) != nil { // mergex.go
		c.mergeX[dst] = mergeXSrc{part: part, win: win, headDim: a.HeadDim}
		return
	}
	variant(c.dispatch(shaders.Key{Op: shaders.OpAttnMerge, HeadDim: a.HeadDim}, shaders.Shape{Heads: a.NHead}, p.splitsFrom > 0,
		func(s *compute.Step) shaders.Params {
			return shaders.AttnMergeParams{Heads: u32(a.NHead), Splits: u32(p.splitsFor(attnRange(s.Pos0+1, win)))}
		},
		part, c.act(dst)), attnLong)
}

// attnRange is the number of positions a decode query at L-1 attends to
// with a window of win (0: all L).
func attnRange(L, win int) int {
	if win > 0 {
		return min(L, win)
	}
	return L
}

// fitsWorkgroup reports whether key builds within the device's workgroup
// memory (a large GQA group times a wide head may not).
func (c *compiler) fitsWorkgroup(key shaders.Key) bool {
	k, err := shaders.Build(key)
	return err == nil && uint32(k.WorkgroupBytes) <= c.b.d.Limits().MaxComputeWorkgroupStorageSize
}

// variant marks ds as recorded only into the tapes of attention variant v.
func variant(ds *desc, v uint8) {
	if ds != nil {
		ds.attn = v
	}
}

// short reports whether step s uses the short-range attention tape.
func (p *program) short(s *compute.Step) bool {
	return p.shortMax > 0 && s.Pos0+len(s.Tokens) <= p.shortMax
}
