package gpu

import (
	"sync/atomic"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/shaders"
)

// forcePlainNorm makes programs compiled afterwards fuse norms into
// plain-format matvecs on software adapters too (tests: lavapipe is one).
var forcePlainNorm atomic.Bool

// plainNorm reports whether b's programs fuse norms into plain-format
// matvecs (fusions.plainNorm): on hardware adapters.
func (b *Backend) plainNorm() bool { return forcePlainNorm.Load() || !b.d.Info().Fallback }

// planNormFusions finds the RMSNorms that the following matvec kernel can
// compute itself (shaders.Key.Norm): on decode each such norm was a
// dispatch of its own (33 of 148 per token for a 16-layer Llama), and its
// output a write and a read of the row. It runs after the other fusions,
// since it needs to know which MatMuls form one kernel. A norm qualifies
// when it normalises one whole row and every reader of its output is the x
// operand of the MatMuls of exactly one kernel:
//   - the Q, K and V MatMuls of one matvec_qkv (any weight formats);
//   - the gate and up MatMuls of one SwiGLU matvec;
//   - one MatMul lowered as a matvec, with or without the residual epilogue
//     (plain formats, matvec_plain's Norm variant, only with f.plainNorm).
//
// The absorbed norm runs at the kernel's position (f.by), so
// layoutActivations keeps its input alive until then and never stores its
// output.
func planNormFusions(g *compute.Graph, f *fusions) {
	f.norm = map[*compute.Node]*compute.Node{}
	readersOf := readerNodes(g)
	// pos is the node at which m's kernel is lowered.
	pos := func(m *compute.Node) *compute.Node {
		if b := f.by[m]; b != nil {
			return b
		}
		if l := f.lead[m]; l != nil {
			return l
		}
		return m
	}
	block := func(ms ...*compute.Node) bool {
		for _, m := range ms {
			if m.Src[0].Type.BlockSize() == 1 && !f.plainNorm {
				return false
			}
		}
		return true
	}
	for _, nn := range g.Nodes {
		if nn.Op != compute.OpRMSNorm || f.by[nn] != nil || f.lead[nn] != nil {
			continue
		}
		x, d := nn.Src[0], nn.Dst
		if x.Ne[1] != 1 || nn.Group != x.Ne[0] || d == g.Logits || x.Ne[0]%32 != 0 {
			continue
		}
		rs := readersOf[d]
		if len(rs) == 0 {
			continue
		}
		ok := true
		for _, r := range rs {
			// Only as a MatMul's x, and only once per reader.
			if r.Op != compute.OpMatMul || r.Src[1] != d || r.Src[0] == d || (r.Src[2] != nil && r.Src[2] == d) {
				ok = false
			}
		}
		if !ok {
			continue
		}
		first := rs[0]
		var kernel []*compute.Node
		switch {
		case f.qkv[first] != [2]*compute.Node{}:
			kv := f.qkv[first]
			kernel = []*compute.Node{first, kv[0], kv[1]}
		case f.swiglu[f.by[first]] != [2]*compute.Node{}:
			gu := f.swiglu[f.by[first]]
			kernel = []*compute.Node{gu[0], gu[1]}
			if !block(gu[0], gu[1]) {
				continue
			}
		case f.lead[first] == nil:
			kernel = []*compute.Node{first}
			if !block(first) {
				continue
			}
		default:
			continue
		}
		if !sameSet(rs, kernel) {
			continue
		}
		f.norm[kernel[0]] = nn
		f.by[nn] = pos(kernel[0])
	}
}

// sameSet reports whether a and b hold the same nodes (b has no repeats).
func sameSet(a, b []*compute.Node) bool {
	if len(a) != len(b) {
		return false
	}
	in := map[*compute.Node]bool{}
	for _, n := range b {
		in[n] = true
	}
	for _, n := range a {
		if !in[n] {
			return false
		}
		delete(in, n)
	}
	return len(in) == 0
}

// normInput applies a fused norm to a matvec kernel led by MatMul m: it
// returns the kernel's x (the norm's input, or m's own x without a norm),
// and with a norm sets key.Norm, appends the norm weight to binds and
// returns the epsilon for the params.
func (c *compiler) normInput(m *compute.Node, key *shaders.Key, binds *[]bref) (x *compute.Tensor, eps float32, fused bool) {
	nn, ok := c.fuse.norm[m]
	if !ok {
		return m.Src[1], 0, false
	}
	key.Norm = true
	if nn.Src[1] != nil {
		*binds = append(*binds, c.small(nn.Src[1]))
	} else {
		*binds = append(*binds, c.ones(nn.Group))
	}
	return nn.Src[0], nn.Eps, true
}
