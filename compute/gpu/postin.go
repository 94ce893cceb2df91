package gpu

import (
	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/shaders"
)

// planPostIns moves a post-norm residual add into the matvec that reads
// it: h = r + RMSNorm(y)·w (planPostNorms' one rms_norm dispatch) is read
// by the next block's pre-norm, absorbed by a GLU or QKV matvec
// (planNormFusions), and by that block's own residual add later. The
// matvec then stages h from y, r and w itself, one workgroup storing h for
// that later add (shaders Key.PostAdd on OpMatvec and OpMatvecQKV):
// Gemma's post-attention and post-FFN norms cost no dispatch of their own
// at decode, 52 a token fewer for Gemma 3 1B.
//
// Only one-row (decode) graphs, block-format weights (the staging that
// computes h is matvec_q's) and post-norms with a weight qualify, and only
// when no reader of h runs before the matvec. on is false when
// Backend.SetPostIn turned the fusion off. A QKV matvec past the device's
// storage-buffer limit gives its add back (unfuseSplit).
func planPostIns(g *compute.Graph, f *fusions, on bool) {
	f.postIn = map[*compute.Node]*compute.Node{}
	f.keep = map[*compute.Tensor]bool{}
	if !on {
		return
	}
	idx := map[*compute.Node]int{}
	for i, n := range g.Nodes {
		idx[n] = i
	}
	readersOf := readerNodes(g)
	// The GLU or QKV matvec that absorbed each pre-norm (its lead node).
	gluOf := map[*compute.Node]*compute.Node{}
	for glu, gu := range f.swiglu {
		if nn, ok := f.norm[gu[0]]; ok && gu[0].Src[1].Ne[1] == 1 &&
			gu[0].Src[0].Type.BlockSize() > 1 && gu[1].Src[0].Type.BlockSize() > 1 {
			gluOf[nn] = glu
		}
	}
	for q, kv := range f.qkv {
		if nn, ok := f.norm[q]; ok && q.Src[1].Ne[1] == 1 && q.Src[0].Type.BlockSize() > 1 &&
			kv[0].Src[0].Type.BlockSize() > 1 && kv[1].Src[0].Type.BlockSize() > 1 {
			gluOf[nn] = q
		}
	}
	for add, post := range f.postNorm {
		h := add.Dst
		if h.Ne[1] != 1 || post.Src[1] == nil || h == g.Logits {
			continue
		}
		var glu *compute.Node
		for _, r := range readersOf[h] {
			if k, ok := gluOf[r]; ok && r.Src[0] == h {
				glu = k
			}
		}
		if glu == nil {
			continue
		}
		ok := true
		for _, r := range readersOf[h] {
			at := r
			if b := f.by[r]; b != nil {
				at = b
			}
			if at != glu && idx[at] <= idx[glu] {
				ok = false // read before the kernel that writes it
			}
		}
		if !ok {
			continue
		}
		f.postIn[glu] = add
		f.by[add], f.by[post] = glu, glu
		f.keep[h] = true
	}
}

// undoPostIns gives the post-norm adds planPostIns moved back their own
// rms_norm dispatch (before the norm fusions are planned again).
func undoPostIns(f *fusions) {
	for k := range f.postIn {
		undoPostIn(f, k)
	}
}

// undoPostIn gives the post-norm add moved into the matvec led by k back
// its own rms_norm dispatch.
func undoPostIn(f *fusions, k *compute.Node) {
	add, ok := f.postIn[k]
	if !ok {
		return
	}
	delete(f.by, add)
	f.by[f.postNorm[add]] = add
	delete(f.keep, add.Dst)
	delete(f.postIn, k)
}

// postInBinds applies a moved post-norm add (planPostIns) to the key of
// the GLU or QKV matvec led by glu: the kernel's x becomes the post-norm's
// input y, and r, the post-norm weight and h join the end of its bindings.
// It returns the post-norm's epsilon, and ok false when glu has none.
func (c *compiler) postInBinds(glu *compute.Node, key *shaders.Key, binds []bref) ([]bref, float32, bool) {
	add, ok := c.fuse.postIn[glu]
	if !ok {
		return binds, 0, false
	}
	post := c.fuse.postNorm[add]
	res := add.Src[0]
	if res == post.Dst {
		res = add.Src[1]
	}
	key.PostAdd = true
	binds[1] = c.act(post.Src[0])
	return append(binds, c.act(res), c.small(post.Src[1]), c.act(add.Dst)), post.Eps, true
}

// SetPostIn turns planPostIns' fusion on (the default) or off for programs
// compiled afterwards (tests and benchmarks: off, the post-norm add keeps
// its rms_norm dispatch).
func (b *Backend) SetPostIn(on bool) {
	b.mu.Lock()
	b.noPostIn = !on
	b.mu.Unlock()
}

func (b *Backend) postInOK() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return !b.noPostIn
}
