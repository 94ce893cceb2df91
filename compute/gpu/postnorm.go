package gpu

import (
	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/shaders"
)

// planPostNorms finds the post-norm residual adds: Add(r, RMSNorm(y, w)),
// in either operand order, where the RMSNorm normalises whole rows and its
// output is read by that Add alone. Gemma 2 and 3 norm each block's output
// before the residual add (post_attention_norm, post_ffw_norm), so the Add
// cannot take the block's last MatMul as a residual epilogue; instead the
// norm's rms_norm dispatch adds r itself (shaders.Key.PostAdd) and writes
// the Add's output, one dispatch fewer per norm (52 a token for Gemma 3
// 1B's 26 layers). One workgroup per row, so decode and prefill alike.
//
// The norm runs at the Add's position (f.by): y and r both exist before
// it (the norm reads y, the Add reads r), and the norm's output, never
// stored, has no other reader. It runs after the residual fusion (an Add
// that takes a MatMul epilogue keeps it: the same dispatch saved) and
// before planNormFusions, whose norms are read only by MatMuls, never by an
// Add, so the two never claim one norm.
func planPostNorms(g *compute.Graph, f *fusions) {
	f.postNorm = map[*compute.Node]*compute.Node{}
	nr := readers(g)
	prod := map[*compute.Tensor]*compute.Node{}
	for _, n := range g.Nodes {
		if n.Dst != nil {
			prod[n.Dst] = n
		}
	}
	free := func(n *compute.Node) bool { return f.by[n] == nil && f.lead[n] == nil }
	for _, n := range g.Nodes {
		if n.Op != compute.OpAdd || !free(n) {
			continue
		}
		if _, ok := f.residual[n]; ok {
			continue
		}
		for k, s := range n.Src[:2] {
			nn, other := prod[s], n.Src[1-k]
			if nn == nil || nn.Op != compute.OpRMSNorm || other == s || nr[s] != 1 || s == g.Logits || !free(nn) ||
				nn.Group != nn.Src[0].Ne[0] {
				continue
			}
			f.postNorm[n] = nn
			f.by[nn] = n
			break
		}
	}
}

// rmsNorm lowers RMSNorm node n writing dst; with res (a post-norm
// residual add, planPostNorms) it adds res to the normed rows
// (shaders.Key.PostAdd), dst then being the Add's output.
func (c *compiler) rmsNorm(n *compute.Node, res, dst *compute.Tensor) {
	x := n.Src[0]
	per := x.Ne[0] / n.Group
	var wr bref
	if n.Src[1] != nil {
		wr = c.small(n.Src[1])
	} else {
		wr = c.ones(n.Group)
	}
	key := shaders.Key{Op: shaders.OpRMSNorm}
	binds := []bref{c.act(x), wr, c.act(dst)}
	if res != nil {
		key.PostAdd = true
		binds = []bref{c.act(x), c.act(res), wr, c.act(dst)}
	}
	group, eps := n.Group, n.Eps
	scales(c.dispatch(key, shaders.Shape{M: dst.Ne[1] * per}, dynRows(dst),
		func(s *compute.Step) shaders.Params {
			return shaders.RMSNormParams{K: u32(group), M: u32(rows(dst, s) * per), Eps: eps}
		}, binds...), dst, true, false)
}
