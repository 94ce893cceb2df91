package gpu

import (
	"fmt"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/shaders"
)

// maxTopK is the capacity of the GPU top-k sampler.
const maxTopK = 64

// rows returns the valid rows of activation t in step s. A tensor of one
// static row always computes it (its validity does not change the work).
func rows(t *compute.Tensor, s *compute.Step) int {
	switch {
	case t.Ne[1] == 1:
		return 1
	case t.Rows == compute.RowsOut:
		return len(s.OutRows)
	}
	return len(s.Tokens)
}

// dynRows reports whether t's valid row count varies between steps.
func dynRows(t *compute.Tensor) bool { return t.Ne[1] > 1 }

func u32(n int) uint32 { return uint32(n) }

// lower appends the dispatches of node n.
func (c *compiler) lower(n *compute.Node) {
	switch n.Op {
	case compute.OpGetRows:
		w, dst := n.Src[0], n.Dst
		c.dispatch(shaders.Key{Op: shaders.OpGetRows, Weight: w.Type}, shaders.Shape{M: dst.Ne[1]}, dynRows(dst),
			func(s *compute.Step) shaders.Params {
				return shaders.GetRowsParams{K: u32(w.Ne[0]), M: u32(rows(dst, s)), Rows: u32(w.Ne[1])}
			}, c.weightRef(w), bref{kind: refTokens}, c.act(dst))
	case compute.OpSelectRows:
		// get_rows over the arena as an f32 table of the valid token rows.
		x, dst := n.Src[0], n.Dst
		c.dispatch(shaders.Key{Op: shaders.OpGetRows, Weight: gguf.TypeF32}, shaders.Shape{M: dst.Ne[1]}, dynRows(dst) || dynRows(x),
			func(s *compute.Step) shaders.Params {
				return shaders.GetRowsParams{K: u32(x.Ne[0]), M: u32(rows(dst, s)), Rows: u32(rows(x, s))}
			}, c.act(x), bref{kind: refOutRows}, c.act(dst))
	case compute.OpRMSNorm:
		x, dst := n.Src[0], n.Dst
		per := x.Ne[0] / n.Group
		var wr bref
		if n.Src[1] != nil {
			wr = c.small(n.Src[1])
		} else {
			wr = c.ones(n.Group)
		}
		group, eps := n.Group, n.Eps
		c.dispatch(shaders.Key{Op: shaders.OpRMSNorm}, shaders.Shape{M: dst.Ne[1] * per}, dynRows(dst),
			func(s *compute.Step) shaders.Params {
				return shaders.RMSNormParams{K: u32(group), M: u32(rows(dst, s) * per), Eps: eps}
			}, c.act(x), wr, c.act(dst))
	case compute.OpMatMul:
		c.matmul(n)
	case compute.OpRope:
		c.rope(n)
	case compute.OpKVWrite:
		k, v, a := n.Src[0], n.Src[1], n.Attn
		nCtx := c.p.nCtx
		c.dispatch(shaders.Key{Op: shaders.OpKVWrite, KV: gguf.TypeF32}, shaders.Shape{M: k.Ne[1], KVHeads: a.NHeadKV, K: a.HeadDim}, true,
			func(s *compute.Step) shaders.Params {
				return shaders.KVWriteParams{M: u32(rows(k, s)), KVHeads: u32(a.NHeadKV), HeadDim: u32(a.HeadDim), Pos0: u32(s.Pos0), Ctx: u32(nCtx)}
			}, c.act(k), c.act(v), c.cache(n.Src[2]), c.cache(n.Src[3]))
	case compute.OpAttention:
		c.attention(n)
	case compute.OpSiluMul, compute.OpAdd:
		op := shaders.OpSiLUMul
		if n.Op == compute.OpAdd {
			op = shaders.OpAdd
		}
		dst := n.Dst
		c.dispatch(shaders.Key{Op: op}, shaders.Shape{N: dst.Elems()}, dynRows(dst),
			func(s *compute.Step) shaders.Params {
				return shaders.EltwiseParams{N: u32(rows(dst, s) * dst.Ne[0])}
			}, c.act(n.Src[0]), c.act(n.Src[1]), c.act(dst))
	default:
		c.fail(&Error{n.Op.String(), "op not supported by the WebGPU backend"})
	}
}

// matmul lowers w·x (+bias): matvec when x has one row (decode), the tiled
// matmul otherwise.
func (c *compiler) matmul(n *compute.Node) {
	w, x, dst := n.Src[0], n.Src[1], n.Dst
	binds := []bref{c.weightRef(w), c.act(x), c.act(dst)}
	if n.Src[2] != nil {
		binds = append(binds, c.small(n.Src[2]))
	}
	bias := n.Src[2] != nil
	if x.Ne[1] == 1 {
		c.dispatch(shaders.Key{Op: shaders.OpMatvec, Weight: w.Type, Bias: bias}, shaders.Shape{N: w.Ne[1]}, false,
			func(*compute.Step) shaders.Params { return shaders.MatvecParams{K: u32(w.Ne[0]), N: u32(w.Ne[1])} }, binds...)
		return
	}
	c.dispatch(shaders.Key{Op: shaders.OpMatmul, Weight: w.Type, Bias: bias}, shaders.Shape{M: x.Ne[1], N: w.Ne[1]}, true,
		func(s *compute.Step) shaders.Params {
			return shaders.MatmulParams{M: u32(rows(x, s)), N: u32(w.Ne[1]), K: u32(w.Ne[0])}
		}, binds...)
}

// rope copies x to the destination and rotates it there in place.
func (c *compiler) rope(n *compute.Node) {
	x, dst, rp := n.Src[0], n.Dst, n.Rope
	c.copyBuf(c.act(x), c.act(dst), uint64(x.Elems())*4)
	binds := []bref{c.act(dst)}
	if n.Src[1] != nil {
		binds = append(binds, c.small(n.Src[1]))
	}
	c.dispatch(shaders.Key{Op: shaders.OpRoPE, Neox: rp.Mode == compute.RopeNeox, FreqFactors: n.Src[1] != nil},
		shaders.Shape{M: dst.Ne[1], Heads: rp.NHeads, K: rp.NRot}, true,
		func(s *compute.Step) shaders.Params {
			return shaders.RoPEParams{M: u32(rows(dst, s)), Heads: u32(rp.NHeads), HeadDim: u32(rp.HeadDim), NRot: u32(rp.NRot),
				Pos0: u32(s.Pos0), FreqBase: rp.Base, FreqScale: rp.Scale}
		}, binds...)
}

// attention lowers to flash-decoding (split, merge) for one query row and
// to the tiled prefill kernel otherwise.
func (c *compiler) attention(n *compute.Node) {
	q, dst, a := n.Src[0], n.Dst, n.Attn
	p := c.p
	nCtx, splits := p.nCtx, p.splits
	if q.Ne[1] == 1 {
		part := bref{buf: p.partial, size: pad16(uint64(a.NHead*splits*(a.HeadDim+2)) * 4)}
		c.dispatch(shaders.Key{Op: shaders.OpAttnDecode, KV: gguf.TypeF32, HeadDim: a.HeadDim}, shaders.Shape{Heads: a.NHead, Splits: splits}, true,
			func(s *compute.Step) shaders.Params {
				return shaders.AttnDecodeParams{Heads: u32(a.NHead), KVHeads: u32(a.NHeadKV), L: u32(s.Pos0 + 1), Ctx: u32(nCtx), Splits: u32(splits), Scale: a.Scale}
			}, c.act(q), c.cache(n.Src[1]), c.cache(n.Src[2]), part)
		c.dispatch(shaders.Key{Op: shaders.OpAttnMerge, HeadDim: a.HeadDim}, shaders.Shape{Heads: a.NHead}, false,
			func(*compute.Step) shaders.Params {
				return shaders.AttnMergeParams{Heads: u32(a.NHead), Splits: u32(splits)}
			},
			part, c.act(dst))
		return
	}
	c.dispatch(shaders.Key{Op: shaders.OpAttnPrefill, KV: gguf.TypeF32, HeadDim: a.HeadDim}, shaders.Shape{M: q.Ne[1], Heads: a.NHead}, true,
		func(s *compute.Step) shaders.Params {
			return shaders.AttnPrefillParams{M: u32(rows(q, s)), Heads: u32(a.NHead), KVHeads: u32(a.NHeadKV), Pos0: u32(s.Pos0), Ctx: u32(nCtx), Scale: a.Scale}
		}, c.act(q), c.cache(n.Src[1]), c.cache(n.Src[2]), c.act(dst))
}

// samplers adds the greedy and top-k kernels over the first logits row,
// recorded only into the tapes of RunArgmax and RunTopK.
func (c *compiler) samplers() {
	nv := c.p.nVocab
	out := bref{buf: c.p.result, size: c.p.result.Size()}
	if ds := c.dispatch(shaders.Key{Op: shaders.OpArgmax}, shaders.Shape{N: nv}, false,
		func(*compute.Step) shaders.Params { return shaders.ArgmaxParams{N: u32(nv)} }, c.act(c.p.g.Logits), out); ds != nil {
		ds.sampler = "argmax"
	}
	k := min(maxTopK, nv)
	if ds := c.dispatch(shaders.Key{Op: shaders.OpTopK, TopK: maxTopK}, shaders.Shape{N: nv}, false,
		func(*compute.Step) shaders.Params { return shaders.TopKParams{N: u32(nv), K: u32(k)} }, c.act(c.p.g.Logits), out); ds != nil {
		ds.sampler = "top_k"
	}
}

var _ = fmt.Sprint
