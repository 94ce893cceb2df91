package gpu

import (
	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/shaders"
)

// mergeXSrc is the split partials of an attention whose output projection
// merges them while staging its x (shaders Key.MergeX): the partials'
// buffer, the attention's window (its split count follows the range) and
// head size.
type mergeXSrc struct {
	part    bref
	win     int
	headDim int
}

// mergeXTarget returns the MatMul that reads decode attention node n's
// output as its x and can merge n's split partials itself, saving the
// attn_merge dispatch (Gemma 3 1B: 26 a token); nil where none can. It
// must be n's only reader, a one-row matvec of a block-format weight (the
// staging that merges is matvec_q's) lowered alone or with its residual
// add. Every attention of the graph must run split + merge at every range
// (MQA layers with wide heads on the wide kernel, DecodeAttention
// WideShortMax 0): the x a matvec reads cannot change between the short-
// and long-range tapes.
func (c *compiler) mergeXTarget(n *compute.Node) *compute.Node {
	c.b.mu.Lock()
	off := !c.b.mergeX
	c.b.mu.Unlock()
	cfg := c.b.decodeAttention()
	if off || !cfg.MQASplit || cfg.WideTK == 0 || cfg.WideShortMax > 0 || n.Attn.NHead > shaders.MatvecMergeXMaxHeads {
		return nil
	}
	dst := n.Dst
	var m *compute.Node
	for _, r := range c.p.g.Nodes {
		if r.Op == compute.OpAttention && (r.Attn.NHeadKV != 1 || r.Attn.HeadDim < 128) {
			return nil // an attention with a short-range tape
		}
		for _, s := range r.Src {
			if s != dst {
				continue
			}
			if m != nil || r.Op != compute.OpMatMul || r.Src[1] != dst || r.Src[0] == dst || r.Src[2] == dst {
				return nil
			}
			m = r
		}
	}
	if m == nil || dst.Ne[1] != 1 || m.Src[0].Type.BlockSize() == 1 || c.isSplit(m.Src[0]) {
		return nil
	}
	f := &c.fuse
	if f.lead[m] != nil || f.qkv[m] != [2]*compute.Node{} || f.norm[m] != nil {
		return nil
	}
	if b := f.by[m]; b != nil && f.residual[b].mm != m {
		return nil // absorbed by a kernel other than its residual add
	}
	return m
}

// matvecMergeX lowers MatMul n, whose x is an attention output left as
// split partials (mergeX), as one matvec that merges them while staging.
func (c *compiler) matvecMergeX(n *compute.Node, mx mergeXSrc, binds []bref, bias, resid bool) {
	w, p := n.Src[0], c.p
	key := shaders.Key{Op: shaders.OpMatvec, Weight: w.Type, Bias: bias, Residual: resid, MergeX: true, HeadDim: mx.headDim}
	binds[1] = mx.part
	c.dispatch(key, shaders.Shape{N: w.Ne[1]}, p.splitsFrom > 0,
		func(s *compute.Step) shaders.Params {
			return shaders.MatvecParams{K: u32(w.Ne[0]), N: u32(w.Ne[1]), Splits: u32(p.splitsFor(attnRange(s.Pos0+1, mx.win)))}
		}, binds...)
}

// SetMergeX turns the merge of split attention partials into the output
// projection's matvec (mergeXTarget) on or off (the default) for programs
// compiled afterwards. Off by default because on the H200 it cost more
// than the attn_merge dispatch it saves: Gemma-3-1B-shaped q4_0 tg128,
// same call, two alternated rounds, 590.3, 590.6 → 581.3, 582.1 tok/s at
// depth 0 and 539.4, 539.4 → 528.4, 528.9 at 4096 (every one of the 144
// workgroups of the output matvec merges all 4 heads' partials). Where a
// dispatch costs more (browsers) it may pay; bench --merge-x measures it.
func (b *Backend) SetMergeX(on bool) {
	b.mu.Lock()
	b.mergeX = on
	b.mu.Unlock()
}
