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
	if c.lowerSplit(n) {
		return // reads a weight split by rows (split.go)
	}
	switch n.Op {
	case compute.OpGetRows:
		w, dst := n.Src[0], n.Dst
		scales(c.dispatch(shaders.Key{Op: shaders.OpGetRows, Weight: w.Type}, shaders.Shape{M: dst.Ne[1], K: w.Ne[0]}, dynRows(dst),
			func(s *compute.Step) shaders.Params {
				return shaders.GetRowsParams{K: u32(w.Ne[0]), M: u32(rows(dst, s)), Rows: u32(w.Ne[1])}
			}, c.weightRef(w), bref{kind: refTokens}, c.act(dst)), dst, true, false)
	case compute.OpPosRows:
		// get_rows with the step's positions (or zeros) as the row ids.
		w, dst := n.Src[0], n.Dst
		ids := bref{kind: refPositions}
		if n.Row0 {
			ids = bref{kind: refZeros}
		}
		scales(c.dispatch(shaders.Key{Op: shaders.OpGetRows, Weight: w.Type}, shaders.Shape{M: dst.Ne[1], K: w.Ne[0]}, dynRows(dst),
			func(s *compute.Step) shaders.Params {
				return shaders.GetRowsParams{K: u32(w.Ne[0]), M: u32(rows(dst, s)), Rows: u32(w.Ne[1])}
			}, c.weightRef(w), ids, c.act(dst)), dst, true, false)
	case compute.OpSelectRows:
		// get_rows over the arena as an f32 table of the valid token rows.
		x, dst := n.Src[0], n.Dst
		c.dispatch(shaders.Key{Op: shaders.OpGetRows, Weight: gguf.TypeF32}, shaders.Shape{M: dst.Ne[1], K: x.Ne[0]}, dynRows(dst) || dynRows(x),
			func(s *compute.Step) shaders.Params {
				return shaders.GetRowsParams{K: u32(x.Ne[0]), M: u32(rows(dst, s)), Rows: u32(rows(x, s))}
			}, c.act(x), bref{kind: refOutRows}, c.act(dst))
	case compute.OpRMSNorm:
		c.rmsNorm(n, nil, n.Dst) // postnorm.go
	case compute.OpMatMul:
		if kv, ok := c.fuse.qkv[n]; ok {
			c.qkv(n, kv[0], kv[1])
			return
		}
		c.matmul(n)
	case compute.OpRope:
		if g, ok := c.fuse.ropeKV[n]; ok {
			c.ropeKV(n, g[0], g[1])
			return
		}
		c.rope(n)
	case compute.OpKVWrite:
		k, v, a := n.Src[0], n.Src[1], n.Attn
		nCtx := n.Src[2].Ne[1]
		scales(c.dispatch(shaders.Key{Op: shaders.OpKVWrite, KV: c.kv, Ring: n.Src[2].Ring}, shaders.Shape{M: k.Ne[1], KVHeads: a.NHeadKV, K: a.HeadDim}, true,
			func(s *compute.Step) shaders.Params {
				return shaders.KVWriteParams{M: u32(rows(k, s)), KVHeads: u32(a.NHeadKV), HeadDim: u32(a.HeadDim), Pos0: u32(s.Pos0), Ctx: u32(nCtx)}
			}, c.act(k), c.act(v), c.cache(n.Src[2]), c.cache(n.Src[3])), k, true, false)
	case compute.OpAttention:
		c.attention(n)
	case compute.OpAdd:
		if r, ok := c.fuse.residual[n]; ok {
			c.matmulInto(r.mm, n.Dst, r.res)
			return
		}
		if nn, ok := c.fuse.postNorm[n]; ok {
			res := n.Src[0]
			if res == nn.Dst {
				res = n.Src[1]
			}
			c.rmsNorm(nn, res, n.Dst)
			return
		}
		c.eltwise(n)
	case compute.OpGLU:
		if gu, ok := c.fuse.swiglu[n]; ok {
			c.swiglu(gu[0], gu[1], n)
			return
		}
		c.eltwise(n)
	case compute.OpMul, compute.OpAct, compute.OpScale, compute.OpSoftcap:
		c.eltwise(n) // eltwise.go
	case compute.OpLayerNorm:
		c.layerNorm(n) // eltwise.go
	default:
		c.fail(&Error{n.Op.String(), "op not supported by the WebGPU backend"})
	}
}

// matmul lowers w·x (+bias): matvec when x has one row (decode), the tiled
// matmul otherwise.
func (c *compiler) matmul(n *compute.Node) { c.matmulInto(n, n.Dst, nil) }

// matmulInto lowers MatMul node n writing dst, adding res (the residual
// epilogue) when not nil.
func (c *compiler) matmulInto(n *compute.Node, dst, res *compute.Tensor) {
	w, x := n.Src[0], n.Src[1]
	binds := []bref{c.weightRef(w), c.act(x), c.act(dst)}
	if n.Src[2] != nil {
		binds = append(binds, c.small(n.Src[2]))
	}
	if res != nil {
		binds = append(binds, c.act(res))
	}
	bias, resid := n.Src[2] != nil, res != nil
	if mx, ok := c.mergeX[x]; ok && x.Ne[1] == 1 {
		c.matvecMergeX(n, mx, binds, bias, resid) // mergex.go
		return
	}
	if x.Ne[1] == 1 {
		key := shaders.Key{Op: shaders.OpMatvec, Weight: w.Type, Bias: bias, Residual: resid}
		// A fused norm's output was never stored: bind its input instead.
		nx, eps, _ := c.normInput(n, &key, &binds)
		binds[1] = c.act(nx)
		c.dispatch(key, shaders.Shape{N: w.Ne[1]}, false,
			func(*compute.Step) shaders.Params {
				return shaders.MatvecParams{K: u32(w.Ne[0]), N: u32(w.Ne[1]), Eps: eps}
			}, binds...)
		return
	}
	if c.matmulSplitK(n, dst, res) { // splitk.go
		return
	}
	ds := c.dispatch(shaders.Key{Op: shaders.OpMatmul, Weight: w.Type, Bias: bias, Residual: resid}, shaders.Shape{M: x.Ne[1], N: w.Ne[1]}, true,
		func(s *compute.Step) shaders.Params {
			return shaders.MatmulParams{M: u32(rows(x, s)), N: u32(w.Ne[1]), K: u32(w.Ne[0])}
		}, binds...)
	scales(ds, x, true, false)
	c.lmHeadRows(ds, n, binds) // lmhead.go
}

// swiglu lowers GLU node glu, act(gate·x)⊙(up·x), as one matvec (one row)
// or one SwiGLU matmul, the activation in the key (shaders.Key.Act: SiLU
// for SwiGLU, GELU for GeGLU).
func (c *compiler) swiglu(gate, up, glu *compute.Node) {
	wg, wu, dst := gate.Src[0], up.Src[0], glu.Dst
	act, ok := c.gluAct(glu)
	if !ok {
		return
	}
	if x := gate.Src[1]; x.Ne[1] > 1 {
		key := shaders.Key{Op: shaders.OpMatmul, Weight: wg.Type, SwiGLU: true, Act: act}
		// Gate and up through one binding where they share a buffer
		// (Key.OneW), else each through its own.
		var binds []bref
		w, off, one := c.oneBinding(wg, wu)
		if one {
			key.OneW = true
			binds = []bref{w, c.act(x), c.act(dst)}
		} else {
			binds = []bref{c.weightRef(wg), c.act(x), c.act(dst), c.weightRef(wu)}
		}
		scales(c.dispatch(key, shaders.Shape{M: x.Ne[1], N: 2 * wg.Ne[1]}, true,
			func(s *compute.Step) shaders.Params {
				return shaders.MatmulParams{M: u32(rows(x, s)), N: u32(wg.Ne[1]), K: u32(wg.Ne[0]), Off: off}
			}, binds...), x, true, false)
		return
	}
	key := shaders.Key{Op: shaders.OpMatvec, Weight: wg.Type, SwiGLU: true, Act: act}
	var extra []bref
	x, eps, _ := c.normInput(gate, &key, &extra)
	binds := append([]bref{c.weightRef(wg), c.act(x), c.act(dst), c.weightRef(wu)}, extra...)
	binds, epsPost, _ := c.postInBinds(glu, &key, binds) // postin.go
	c.dispatch(key, shaders.Shape{N: wg.Ne[1]}, false,
		func(*compute.Step) shaders.Params {
			return shaders.MatvecParams{K: u32(wg.Ne[0]), N: u32(wg.Ne[1]), Eps: eps, EpsPost: epsPost}
		}, binds...)
}

// rope rotates in place: in the source's buffer when layoutActivations
// aliased them, else after copying the source to the destination.
func (c *compiler) rope(n *compute.Node) {
	x, dst, rp := n.Src[0], n.Dst, n.Rope
	if c.p.acts[x] != c.p.acts[dst] {
		c.copyBuf(c.act(x), c.act(dst), uint64(x.Elems())*4)
	}
	binds := []bref{c.act(dst)}
	if n.Src[1] != nil {
		binds = append(binds, c.small(n.Src[1]))
	}
	scales(c.dispatch(shaders.Key{Op: shaders.OpRoPE, Neox: rp.Mode == compute.RopeNeox, FreqFactors: n.Src[1] != nil},
		shaders.Shape{M: dst.Ne[1], Heads: rp.NHeads, K: rp.NRot}, true,
		func(s *compute.Step) shaders.Params {
			return shaders.RoPEParams{M: u32(rows(dst, s)), Heads: u32(rp.NHeads), HeadDim: u32(rp.HeadDim), NRot: u32(rp.NRot),
				Pos0: u32(s.Pos0), FreqBase: rp.Base, FreqScale: rp.Scale, AttnFactor: rp.AttnFactor}
		}, binds...), dst, true, false)
}

// attnKey sets the attention key fields of node n: its window, soft-cap,
// causality and whether its caches are rings. Zero for full causal
// attention over ordinary caches, whose kernels are then unchanged.
func attnKey(key *shaders.Key, n *compute.Node) {
	key.Window, key.Softcap, key.NonCausal, key.Ring = n.Attn.Window, n.Attn.Softcap, n.Attn.NonCausal, n.Src[1].Ring
}

// attention lowers one query row with attnDecode (attn_decode.go) and
// more with the tiled prefill kernel.
func (c *compiler) attention(n *compute.Node) {
	q, dst, a := n.Src[0], n.Dst, n.Attn
	nCtx := n.Src[1].Ne[1]
	if q.Ne[1] == 1 {
		c.attnDecode(n)
		return
	}
	key := shaders.Key{Op: shaders.OpAttnPrefill, KV: c.kv, HeadDim: a.HeadDim}
	attnKey(&key, n)
	scales(c.dispatch(c.attnPrefillKey(key, a.NHead, q.Ne[1]), shaders.Shape{M: q.Ne[1], Heads: a.NHead}, true,
		func(s *compute.Step) shaders.Params {
			return shaders.AttnPrefillParams{M: u32(rows(q, s)), Heads: u32(a.NHead), KVHeads: u32(a.NHeadKV), Pos0: u32(s.Pos0), Ctx: u32(nCtx), Scale: a.Scale}
		}, c.act(q), c.cache(n.Src[1]), c.cache(n.Src[2]), c.act(dst)), q, true, false)
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
	// Top-k in two passes (shaders.TopKParams): a scan of TopKSplits
	// chunks in parallel, then one workgroup merging their sorted lists.
	k := min(maxTopK, nv)
	g := shaders.TopKSplits(nv)
	scanOut := out
	if g > 1 {
		scanOut = bref{buf: c.p.topLists, size: c.p.topLists.Size()}
	}
	if ds := c.dispatch(shaders.Key{Op: shaders.OpTopK, TopK: maxTopK}, shaders.Shape{N: nv, Splits: g}, false,
		func(*compute.Step) shaders.Params { return shaders.TopKParams{N: u32(nv), K: u32(k)} }, c.act(c.p.g.Logits), scanOut); ds != nil {
		ds.sampler = "top_k"
	}
	if g > 1 {
		if ds := c.dispatch(shaders.Key{Op: shaders.OpTopK, TopK: maxTopK, Merge: true}, shaders.Shape{}, false,
			func(*compute.Step) shaders.Params { return shaders.TopKParams{N: u32(g), K: u32(k)} }, scanOut, out); ds != nil {
			ds.sampler = "top_k"
		}
	}
}

var _ = fmt.Sprint

// qkv lowers the Q, K and V projections of one row as one matvec_qkv,
// with the rope_kv group after it in its epilogue when planQKVRope chose so.
func (c *compiler) qkv(q, k, v *compute.Node) {
	if q.Src[1].Ne[1] > 1 {
		c.lowerQKVMatmul(q, k, v)
		return
	}
	wq, wk, wv := q.Src[0], k.Src[0], v.Src[0]
	bias := q.Src[2] != nil
	key := shaders.Key{Op: shaders.OpMatvecQKV, Weight: wq.Type, WeightK: wk.Type, WeightV: wv.Type, Bias: bias}
	var extra []bref
	x, eps, _ := c.normInput(q, &key, &extra)
	yq := q.Dst
	rq := c.fuse.qkvRope[q]
	if rq != nil {
		yq = rq.Dst // written rotated
	}
	binds := []bref{c.weightRef(wq), c.act(x), c.act(yq), c.weightRef(wk), c.act(k.Dst), c.weightRef(wv), c.act(v.Dst)}
	if bias {
		binds = append(binds, c.small(q.Src[2]), c.small(k.Src[2]), c.small(v.Src[2]))
	}
	binds = append(binds, extra...)
	nq, nk, nv := wq.Ne[1], wk.Ne[1], wv.Ne[1]
	if rq == nil {
		binds, epsPost, _ := c.postInBinds(q, &key, binds) // postin.go
		c.dispatch(key, shaders.Shape{N: nq + nk + nv}, false,
			func(*compute.Step) shaders.Params {
				return shaders.MatvecQKVParams{K: u32(wq.Ne[0]), Nq: u32(nq), Nk: u32(nk), Nv: u32(nv), Eps: eps, EpsPost: epsPost}
			}, binds...)
		return
	}
	kw, rp := c.fuse.ropeKV[rq][1], rq.Rope
	key.HeadDim, key.KV, key.FreqFactors, key.Neox = rp.HeadDim, c.kv, rq.Src[1] != nil, rp.Mode == compute.RopeNeox
	key.Ring = kw.Src[2].Ring
	binds = append(binds, c.cache(kw.Src[2]), c.cache(kw.Src[3]))
	if key.FreqFactors {
		binds = append(binds, c.small(rq.Src[1]))
	}
	binds, epsPost, _ := c.postInBinds(q, &key, binds) // postin.go
	nCtx := kw.Src[2].Ne[1]
	c.dispatch(key, shaders.Shape{N: nq + nk + nv}, true,
		func(s *compute.Step) shaders.Params {
			return shaders.MatvecQKVParams{K: u32(wq.Ne[0]), Nq: u32(nq), Nk: u32(nk), Nv: u32(nv), Eps: eps,
				NRot: u32(rp.NRot), Pos0: u32(s.Pos0), Ctx: u32(nCtx), FreqBase: rp.Base, FreqScale: rp.Scale, AttnFactor: rp.AttnFactor, EpsPost: epsPost}
		}, binds...)
}

// ropeKV lowers Rope(q), Rope(k) and the KVWrite of k' and v as one
// rope_kv: q rotated in place (copied first unless layoutActivations
// aliased q and q'), k rotated into the K cache, v copied into the V cache.
// With absorbed per-head norms (fusions.ropeNorm) the kernel norms each q
// and k head row first (Key.Norm): it reads the norms' inputs, whose
// outputs were never stored.
func (c *compiler) ropeKV(rq, rk, kw *compute.Node) {
	q, qd, rp, a := rq.Src[0], rq.Dst, rq.Rope, kw.Attn
	k, v := rk.Src[0], kw.Src[1]
	norms, normed := c.fuse.ropeNorm[rq]
	var eps float32
	if normed {
		q, k, eps = norms[0].Src[0], norms[1].Src[0], norms[0].Eps
	}
	if c.p.acts[q] != c.p.acts[qd] {
		c.copyBuf(c.act(q), c.act(qd), uint64(q.Elems())*4)
	}
	binds := []bref{c.act(qd), c.act(k), c.act(v), c.cache(kw.Src[2]), c.cache(kw.Src[3])}
	if rq.Src[1] != nil {
		binds = append(binds, c.small(rq.Src[1]))
	}
	if normed {
		for _, nn := range norms {
			if nn.Src[1] != nil {
				binds = append(binds, c.small(nn.Src[1]))
			} else {
				binds = append(binds, c.ones(nn.Group))
			}
		}
	}
	nCtx := kw.Src[2].Ne[1]
	scales(c.dispatch(shaders.Key{Op: shaders.OpRoPEKV, KV: c.kv, Neox: rp.Mode == compute.RopeNeox, FreqFactors: rq.Src[1] != nil, Ring: kw.Src[2].Ring, Norm: normed},
		shaders.Shape{M: qd.Ne[1], Heads: a.NHead, KVHeads: a.NHeadKV, K: rp.NRot, N: rp.HeadDim}, true,
		func(s *compute.Step) shaders.Params {
			return shaders.RoPEKVParams{M: u32(rows(qd, s)), Heads: u32(a.NHead), KVHeads: u32(a.NHeadKV), HeadDim: u32(a.HeadDim),
				NRot: u32(rp.NRot), Pos0: u32(s.Pos0), Ctx: u32(nCtx), FreqBase: rp.Base, FreqScale: rp.Scale, Eps: eps, AttnFactor: rp.AttnFactor}
		}, binds...), qd, true, false)
}
