package gpu

import (
	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/shaders"
)

// fusions are the node groups lowered as one kernel, found by pattern
// (planFusions). Fusing cuts dispatches (and activation traffic) on decode,
// where each kernel is short:
//
//   - residual: Add(r, MatMul(w, x)), the MatMul read by nothing else,
//     becomes one matvec/matmul with the residual epilogue writing the Add's result;
//   - swiglu: GLU(MatMul(wg, h), MatMul(wu, h)), SwiGLU or GeGLU (the activation is shaders.Key.Act),
//     becomes one SwiGLU matvec (one row) or one SwiGLU matmul
//     (prefill: no silu_mul, gate and up never stored;
//     H100 pp512 per layer: Qwen2.5-0.5B q4_0 464 → 379 µs, Llama-1B
//     q4_K 1216 → 1177, q4_0 1143 → 1117; f16 was slower, 1162 → 1234,
//     until the matmul's vec4 x reads and double-buffered plain tiles:
//     see the QKV matmul's note in planFusions);
//   - rope in place: a Rope whose source dies at the Rope rotates the
//     source's buffer (layoutActivations aliases them), saving the copy;
//   - qkv: the three MatMuls reading one input (Q, K and V), of one row,
//     become one matvec_qkv at the Q node, each output stored as before;
//     of several rows (prefill), with block-format weights or three of
//     one plain format, one QKV matmul (shaders.Key.QKV; H100 pp512
//     q4_0: Llama-1B +1.4%, Qwen2.5-0.5B +5%; see lowerQKVMatmul);
//   - rope_kv: the Ropes of an Attention's query and of its KVWrite's k,
//     and the KVWrite, become one rope_kv at the q Rope: q rotated in place, k rotated straight into the cache;
//   - rope norm: the per-head RMSNorms of q and k before a rope_kv group's
//     Ropes (Qwen3, Gemma 3: group HeadDim), each read by its Rope alone,
//     run in that rope_kv (shaders.Key.Norm): two dispatches fewer a layer;
//   - qkv rope: a rope_kv group reading exactly a matvec_qkv's three
//     outputs (normal or NEOX RoPE) runs in that kernel's epilogue instead
//     (shaders.Key.HeadDim), one dispatch fewer per layer;
//   - norm: a one-row RMSNorm over the whole row whose only readers are the
//     x operand of one matvec kernel (plain, residual or SwiGLU matvec with
//     block-format weights, or matvec_qkv) runs inside that kernel
//     (shaders.Key.Norm) — see norm.go;
//   - post-norm residual: Add(r, RMSNorm(y, w)), either order, the norm
//     over whole rows and read by nothing else (Gemma's post-attention and
//     post-FFN norms), becomes one rms_norm computing r + RMSNorm(y)·w
//     into the Add's output (shaders.Key.PostAdd) — see postnorm.go.
type fusions struct {
	// lead is the node that lowers a group member whose output is stored
	// (the member's output is allocated at the leader).
	lead map[*compute.Node]*compute.Node
	// qkv maps the Q MatMul to the K and V MatMuls.
	qkv map[*compute.Node][2]*compute.Node
	// ropeKV maps the q Rope to the k Rope and the KVWrite.
	ropeKV map[*compute.Node][2]*compute.Node
	// ropeNorm maps the q Rope of a rope_kv group to the per-head
	// RMSNorms of q and k it absorbs (the rope_kv kernel norms each head
	// row before rotating it).
	ropeNorm map[*compute.Node][2]*compute.Node
	// qkvRope maps a Q MatMul leading a matvec_qkv to the q Rope of the
	// rope_kv group its epilogue computes (the q Rope then has the Q
	// MatMul as lead; its k Rope and KVWrite stay absorbed by it).
	qkvRope map[*compute.Node]*compute.Node
	// by is the node that absorbs a node (the absorbed one is not lowered).
	by map[*compute.Node]*compute.Node
	// residual maps an Add to its MatMul and the residual operand.
	residual map[*compute.Node]resFuse
	// swiglu maps a GLU (SwiGLU or GeGLU) to its gate and up MatMuls.
	swiglu map[*compute.Node][2]*compute.Node
	// norm maps the first MatMul of a matvec kernel (the Q MatMul, the
	// gate MatMul, or the lone MatMul) to the RMSNorm it absorbs.
	norm map[*compute.Node]*compute.Node
	// postNorm maps a post-norm residual Add to the RMSNorm it absorbs
	// (planPostNorms).
	postNorm map[*compute.Node]*compute.Node
	// postIn maps a GLU matvec to the post-norm residual Add whose output
	// it computes while staging its x (planPostIns); keep holds those
	// Adds' outputs, stored by the kernel though their nodes are absorbed.
	postIn map[*compute.Node]*compute.Node
	keep   map[*compute.Tensor]bool
	// plainNorm lets plain-format (f32/f16/bf16) matvec and SwiGLU kernels
	// absorb a norm (planNormFusions): on hardware adapters, where it saves
	// a dispatch; not on software ones, where the per-row-group norm work
	// costs more than the dispatch (lavapipe, tiny-llama-f16 tg64 ~-2%).
	plainNorm bool
}

type resFuse struct {
	mm  *compute.Node
	res *compute.Tensor
}

// readers counts the nodes reading each activation.
func readers(g *compute.Graph) map[*compute.Tensor]int {
	r := map[*compute.Tensor]int{}
	for _, n := range g.Nodes {
		for _, s := range n.Src {
			if s != nil && s.Kind == compute.Activation {
				r[s]++
			}
		}
	}
	return r
}

// readerNodes lists the nodes reading each activation, in graph order.
func readerNodes(g *compute.Graph) map[*compute.Tensor][]*compute.Node {
	r := map[*compute.Tensor][]*compute.Node{}
	for _, n := range g.Nodes {
		for _, s := range n.Src {
			if s != nil && s.Kind == compute.Activation {
				r[s] = append(r[s], n)
			}
		}
	}
	return r
}

// planFusions finds the groups above by their pattern in the graph, not
// by the nodes' adjacency: a node's producer and readers decide, so a
// Forward may put other nodes between a group's members (plainNorm: see
// fusions.plainNorm; kv: the KV cache type, see planQKVRope). A group runs
// at one member's position (its lead or absorber), which must come after
// every input of the group and before every outside reader of its outputs;
// each pattern below names the position and why it is valid.
func planFusions(g *compute.Graph, plainNorm bool, kv gguf.GGMLType, postIn bool) fusions {
	f := fusions{by: map[*compute.Node]*compute.Node{}, residual: map[*compute.Node]resFuse{}, swiglu: map[*compute.Node][2]*compute.Node{},
		lead: map[*compute.Node]*compute.Node{}, qkv: map[*compute.Node][2]*compute.Node{}, ropeKV: map[*compute.Node][2]*compute.Node{},
		ropeNorm: map[*compute.Node][2]*compute.Node{}, plainNorm: plainNorm}
	nr := readers(g)
	single := func(t *compute.Tensor) bool { return t != nil && nr[t] == 1 && t != g.Logits }
	free := func(ns ...*compute.Node) bool {
		for _, n := range ns {
			if f.by[n] != nil || f.lead[n] != nil {
				return false
			}
		}
		return true
	}
	idx := map[*compute.Node]int{}
	prod := map[*compute.Tensor]*compute.Node{}
	attnOf := map[*compute.Tensor]*compute.Node{} // K cache → its Attention
	for i, n := range g.Nodes {
		idx[n] = i
		if n.Dst != nil {
			prod[n.Dst] = n
		}
		if n.Op == compute.OpAttention {
			attnOf[n.Src[1]] = n
		}
	}
	// before reports whether t is an input or produced before position p.
	before := func(t *compute.Tensor, p *compute.Node) bool {
		n, ok := prod[t]
		return !ok || idx[n] < idx[p]
	}
	mms := map[*compute.Tensor][]*compute.Node{} // x → the MatMuls reading it, in order
	for _, n := range g.Nodes {
		if n.Op == compute.OpMatMul {
			mms[n.Src[1]] = append(mms[n.Src[1]], n)
		}
	}
	for _, n := range g.Nodes {
		// qkv: a triple of MatMuls reading one input and nothing else
		// reading it as a MatMul (the attention block's Q, K and V), run
		// at the first one's position: the others' outputs then exist
		// before any of their readers. The first is taken as Q.
		if n.Op != compute.OpMatMul {
			continue
		}
		ms := mms[n.Src[1]]
		if len(ms) != 3 || ms[0] != n || !free(ms...) {
			continue
		}
		k, v := ms[1], ms[2]
		x := n.Src[1]
		hasBias := n.Src[2] != nil
		wq, wk, wv := n.Src[0], k.Src[0], v.Src[0]
		ok := (k.Src[2] != nil) == hasBias && (v.Src[2] != nil) == hasBias
		// One Key.Packed serves the three matrices, so their formats
		// must agree on being packed (shaders.PackedAgree).
		ok = ok && shaders.PackedAgree(wq.Ne[0], wq.Type, wk.Type, wv.Type)
		if x.Ne[1] == 1 {
			ok = ok && wq.Ne[0]%32 == 0 && wq.Ne[1]%qkvRPT == 0 && wk.Ne[1]%qkvRPT == 0
		} else {
			// The QKV matmul: one K. Block formats may differ (shaders
			// Key.WeightK/WeightV: Llama Q4_K_M's q6_K attn_v beside q4_K
			// Q and K in half its layers); a plain format (f32, f16,
			// bf16) fuses only with itself, whose staging reads take any
			// K. Plain formats fuse since the vec4 x reads (Key.XVec) and
			// double-buffered tiles made it pay (H200 Llama-1B F16 pp512
			// ~14.7k → ~15.3k tok/s).
			blocks := wq.Type.BlockSize() > 1 && wk.Type.BlockSize() > 1 && wv.Type.BlockSize() > 1
			ok = ok && wq.Ne[0] == wk.Ne[0] && wq.Ne[0] == wv.Ne[0] &&
				(blocks || wq.Type == wk.Type && wk.Type == wv.Type)
		}
		if ok {
			f.qkv[n] = [2]*compute.Node{k, v}
			f.lead[k], f.lead[v] = n, n
		}
	}
	for _, kw := range g.Nodes {
		if kw.Op != compute.OpKVWrite || attnOf[kw.Src[2]] == nil {
			continue
		}
		att := attnOf[kw.Src[2]]
		// rope_kv: the Rope of the query the Attention reads, the Rope
		// of the k the KVWrite stores, and the KVWrite, run at the q
		// Rope's position: the k Rope's source and v must exist by then.
		rq, rk := prod[att.Src[0]], prod[kw.Src[0]]
		if rq == nil || rk == nil || rq.Op != compute.OpRope || rk.Op != compute.OpRope || !free(rq, rk, kw) {
			continue
		}
		// rope norm: a per-head RMSNorm (group HeadDim) feeding each Rope
		// and read by nothing else runs at the q Rope's position too, so
		// the k norm's source (not its output) must exist by then.
		qn, kn := headNorm(rq, prod, single, free), headNorm(rk, prod, single, free)
		normed := qn != nil && kn != nil && qn.Eps == kn.Eps
		kIn := rk.Src[0]
		if normed {
			kIn = kn.Src[0]
		}
		if !before(kIn, rq) || !before(kw.Src[1], rq) || idx[rq] > idx[kw] {
			continue
		}
		qp, kp, a := rq.Rope, rk.Rope, kw.Attn
		ok := single(rk.Dst) && single(rq.Src[0]) && rq.Src[1] == rk.Src[1] &&
			qp.Mode == kp.Mode && qp.HeadDim == kp.HeadDim && qp.NRot == kp.NRot && qp.Base == kp.Base && qp.Scale == kp.Scale && qp.Mscale() == kp.Mscale() &&
			qp.NHeads == a.NHead && kp.NHeads == a.NHeadKV && qp.HeadDim == a.HeadDim
		if ok {
			f.ropeKV[rq] = [2]*compute.Node{rk, kw}
			f.by[rk], f.by[kw] = rq, rq
			if normed {
				f.ropeNorm[rq] = [2]*compute.Node{qn, kn}
				f.by[qn], f.by[kn] = rq, rq
			}
		}
	}
	for _, n := range g.Nodes {
		switch n.Op {
		case compute.OpGLU:
			// swiglu: a GLU of two projections of one input, run at the
			// GLU's position. SwiGLU and GeGLU alike: the kernels take
			// the activation in their key (shaders.Key.Act).
			a, b := prod[n.Src[0]], prod[n.Src[1]]
			if n.Act > compute.ActGELU || a == nil || b == nil {
				continue
			}
			ok := a.Op == compute.OpMatMul && b.Op == compute.OpMatMul && a != b &&
				single(a.Dst) && single(b.Dst) && a.Src[2] == nil && b.Src[2] == nil &&
				a.Src[1] == b.Src[1] && a.Src[0].Type == b.Src[0].Type && a.Src[0].Ne == b.Src[0].Ne && free(a, b)
			if ok {
				f.swiglu[n] = [2]*compute.Node{a, b}
				f.by[a], f.by[b] = n, n
			}
		case compute.OpAdd:
			// residual: an Add of a projection read by nothing else, run
			// at the Add's position.
			for k, s := range n.Src[:2] {
				m, other := prod[s], n.Src[1-k]
				if m != nil && m.Op == compute.OpMatMul && other != s && single(s) && free(m) && f.qkv[m] == [2]*compute.Node{} {
					f.residual[n] = resFuse{mm: m, res: other}
					f.by[m] = n
					break
				}
			}
		}
	}
	planQKVRope(&f, kv)
	planPostNorms(g, &f)
	planNormFusions(g, &f)
	planPostIns(g, &f, postIn)
	return f
}

// SetPrefillQKV turns the QKV matmul fusion of prefill (several rows;
// lowerQKVMatmul) on (the default) or off for programs compiled
// afterwards; off, Q, K and V run as three matmuls (tests and benchmarks).
func (b *Backend) SetPrefillQKV(on bool) {
	b.mu.Lock()
	b.noQKVMatmul = !on
	b.mu.Unlock()
}

// SetQKVRope turns the RoPE + KV write in the matvec_qkv epilogue
// (planQKVRope) on (the default) or off for programs compiled afterwards;
// off, decode runs rope_kv as its own dispatch (tests and benchmarks).
func (b *Backend) SetQKVRope(on bool) {
	b.mu.Lock()
	b.noRope = !on
	b.mu.Unlock()
}

// planQKVRope moves each rope_kv group that rotates and caches exactly the
// outputs of one matvec_qkv into its epilogue. The epilogue pairs rows
// (2j, 2j+1) within a row group (for NEOX RoPE the kernel takes q and k
// rows in pair order, Key.Neox), so the rows must be whole heads. Into an
// f16 cache (kv) one thread writes each word of two elements; with NEOX it
// rotates two neighbouring pairs (four group rows), so HeadDim and NRot must
// be multiples of 4 there (qkvRPT and the tuned row counts are).
func planQKVRope(f *fusions, kv gguf.GGMLType) {
	f.qkvRope = map[*compute.Node]*compute.Node{}
	byQ := map[*compute.Tensor]*compute.Node{}
	for q := range f.qkv {
		byQ[q.Dst] = q
	}
	for rq, g := range f.ropeKV {
		rk, kw := g[0], g[1]
		q := byQ[rq.Src[0]]
		if q == nil || f.lead[rq] != nil {
			continue
		}
		k, v := f.qkv[q][0], f.qkv[q][1]
		rp, a := rq.Rope, kw.Attn
		ok := q.Src[1].Ne[1] == 1 && rk.Src[0] == k.Dst && kw.Src[1] == v.Dst &&
			rp.HeadDim%2 == 0 && rp.HeadDim <= 256 && rp.NRot%2 == 0 && rp.NRot <= rp.HeadDim && qkvRPT%2 == 0 &&
			(kv != gguf.TypeF16 || rp.Mode != compute.RopeNeox || rp.HeadDim%4 == 0 && rp.NRot%4 == 0) &&
			q.Src[0].Ne[1] == a.NHead*rp.HeadDim && k.Src[0].Ne[1] == a.NHeadKV*rp.HeadDim && v.Src[0].Ne[1] == a.NHeadKV*rp.HeadDim
		if ok {
			f.qkvRope[q] = rq
			f.lead[rq] = q
		}
	}
}

// headNorm returns the RMSNorm producing Rope r's source when rope_kv can
// compute it (Key.Norm): per head (group HeadDim, at most
// shaders.RoPEKVNormMaxHeadDim), its output read by r alone, its weight
// (if any) a weight of HeadDim values, and the norm not in another group.
func headNorm(r *compute.Node, prod map[*compute.Tensor]*compute.Node, single func(*compute.Tensor) bool, free func(...*compute.Node) bool) *compute.Node {
	n := prod[r.Src[0]]
	hd := r.Rope.HeadDim
	if n == nil || n.Op != compute.OpRMSNorm || !single(n.Dst) || !free(n) ||
		n.Group != hd || hd > shaders.RoPEKVNormMaxHeadDim || n.Src[0].Ne != n.Dst.Ne {
		return nil
	}
	if w := n.Src[1]; w != nil && (w.Kind != compute.Weight || w.Ne[0] != hd || w.Elems() != hd) {
		return nil
	}
	return n
}

// qkvRPT is matvec_qkv's default rows per thread: Q and K row counts must
// be multiples of it.
const qkvRPT = 4
