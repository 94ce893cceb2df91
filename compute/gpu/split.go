package gpu

import (
	"fmt"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/shaders"
	"github.com/webgguf/webgguf/webgpu"
)

// Lowering of weights split by rows (place.go): a weight larger than a
// binding may be is bound part by part, each part its own dispatch over
// its rows. Nothing here runs for a model whose weights are all whole, so
// its dispatches are those of lower.go.
//
//   - get_rows: one dispatch per part, each writing the rows whose id is in
//     its range (shaders.GetRowsParams.First/Total).
//   - matvec (decode, plain, residual or SwiGLU, with a fused norm or not):
//     one dispatch per part writing its slice of the output, bound at the
//     part's first row; the plan puts split points on multiples of
//     align/4 rows so that this offset (and the bias and residual slices'
//     offsets) is aligned.
//   - matmul (prefill): the output's rows are strided by the whole N, so a
//     part cannot write its columns in place: each part writes an M×rows
//     block of a scratch buffer, then M copies per part move the blocks'
//     rows into place (into a second scratch buffer, then an add, for the
//     residual epilogue: a copy may not stay within one buffer). The common case is the lm head, where M is the
//     output rows of a step (at most 32).
//   - matvec_qkv: fusions whose Q, K or V weight is split are undone before
//     lowering (unfuseSplit), so the three MatMuls lower as matvecs.

// splitState is the compiler's state for split weights.
type splitState struct {
	// Shared by every split matmul (they run one after another): the
	// parts' outputs, and the assembled output of a residual epilogue.
	scratch, full         *webgpu.Buffer
	scratchSize, fullSize uint64
}

// weightOf returns t's loaded weight.
func (c *compiler) weightOf(t *compute.Tensor) *weight {
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	return c.b.weights[t]
}

// isSplit reports whether weight t is bound in several parts.
func (c *compiler) isSplit(t *compute.Tensor) bool {
	w := c.weightOf(t)
	return w != nil && w.split()
}

// wholeWeight binds a weight held in one part; a split weight read by a
// kernel that has no split lowering is a typed error, never a partial read.
func (c *compiler) wholeWeight(t *compute.Tensor) bref {
	w := c.weightOf(t)
	if w == nil {
		c.fail(&Error{t.Name, "not loaded"})
		return bref{}
	}
	if w.split() {
		c.fail(&Error{t.Name, fmt.Sprintf("split in %d parts (larger than a binding) but read by a kernel that needs it whole", len(w.parts))})
		return bref{}
	}
	return partRef(w.parts[0])
}

func partRef(p wpart) bref { return bref{buf: p.buf, off: p.off, size: p.size} }

// rowSlice binds rows [p.first, p.first+p.rows) of r, a vector of f32
// values per weight row (a matvec output, bias or residual).
func rowSlice(r bref, p wpart) bref {
	return bref{kind: r.kind, buf: r.buf, off: r.off + uint64(p.first)*4, size: pad16(uint64(p.rows) * 4)}
}

// unfuseSplit undoes the matvec_qkv and QKV matmul fusions reading a split
// weight (one kernel cannot take Q, K and V in parts; and the QKV matmul
// when SetPrefillQKV turned it off) and re-plans the norm fusions,
// which depend on which MatMuls form one kernel. Called before the
// activations are laid out.
func (c *compiler) unfuseSplit() {
	f := &c.fuse
	c.b.mu.Lock()
	noRope, noQKV := c.b.noRope, c.b.noQKVMatmul
	c.b.mu.Unlock()
	changed := false
	for q, kv := range f.qkv {
		if c.isSplit(q.Src[0]) || c.isSplit(kv[0].Src[0]) || c.isSplit(kv[1].Src[0]) || (noQKV && q.Src[1].Ne[1] > 1) {
			delete(f.qkv, q)
			delete(f.lead, kv[0])
			delete(f.lead, kv[1])
			changed = true
		}
	}
	// The SwiGLU matmul (prefill) has no split lowering: its gate and up
	// MatMuls lower on their own (matmulSplit), then silu_mul (gelu_mul).
	for n, gu := range f.swiglu {
		if gu[0].Src[1].Ne[1] > 1 && (c.isSplit(gu[0].Src[0]) || c.isSplit(gu[1].Src[0])) {
			delete(f.swiglu, n)
			delete(f.by, gu[0])
			delete(f.by, gu[1])
		}
	}
	// A QKV matvec with RoPE and the KV write in its epilogue binds the
	// caches, the frequency factors and its norm's weight beside its own 7
	// buffers: past the device's storage-buffer limit (SwiftShader's 10;
	// Phi-3's LongRoPE factors with the norm make 11) RoPE and the KV
	// write go back to their own rope_kv.
	maxSB := int(c.b.d.Limits().MaxStorageBuffersPerShaderStage)
	qkvRopeBinds := func(q, rq *compute.Node) int {
		n := 7 + 2 // w, x and y of Q, K, V; the two caches
		if q.Src[2] != nil {
			n += 3 // biases
		}
		if f.norm[q] != nil {
			n++
		}
		if rq.Src[1] != nil {
			n++ // frequency factors
		}
		return n
	}
	for q, rq := range f.qkvRope { // back to its own rope_kv
		if f.qkv[q] == [2]*compute.Node{} || noRope || qkvRopeBinds(q, rq) > maxSB {
			delete(f.qkvRope, q)
			delete(f.lead, rq)
		}
	}
	// A post-norm add in a QKV matvec (planPostIns) binds r, its weight
	// and h besides: past the limit (11 for Gemma 3, 14 with RoPE in the
	// epilogue) the add gets its own rms_norm dispatch back.
	for q := range f.postIn {
		if _, ok := f.qkv[q]; !ok {
			continue
		}
		n := 7 + 3
		if q.Src[2] != nil {
			n += 3
		}
		if f.norm[q] != nil {
			n++
		}
		if rq := f.qkvRope[q]; rq != nil {
			n = qkvRopeBinds(q, rq) + 3
		}
		if n > maxSB {
			undoPostIn(f, q)
		}
	}
	if changed {
		undoPostIns(f)
		for _, nn := range f.norm {
			delete(f.by, nn)
		}
		planNormFusions(c.p.g, f)
		planPostIns(c.p.g, f, c.b.postInOK())
	}
	// The scratch of split matmuls: the largest M×N, each part's block
	// aligned, and M×N again for a residual epilogue.
	align := uint64(max(256, c.b.d.Limits().MinStorageBufferOffsetAlignment))
	for _, n := range c.p.g.Nodes {
		if n.Op != compute.OpMatMul || n.Src[1].Ne[1] == 1 || !c.isSplit(n.Src[0]) {
			continue
		}
		w, m := c.weightOf(n.Src[0]), uint64(n.Src[1].Ne[1])
		var need uint64
		for _, p := range w.parts {
			need += (m*uint64(p.rows)*4 + align - 1) / align * align
		}
		c.split.scratchSize = max(c.split.scratchSize, need)
		c.split.fullSize = max(c.split.fullSize, pad16(m*uint64(n.Src[0].Ne[1])*4))
	}
}

// lowerSplit lowers n when it reads a split weight and reports whether it
// did; lower calls it first.
func (c *compiler) lowerSplit(n *compute.Node) bool {
	switch n.Op {
	case compute.OpGetRows:
		if c.isSplit(n.Src[0]) {
			c.getRowsSplit(n)
			return true
		}
	case compute.OpMatMul:
		if _, fused := c.fuse.qkv[n]; !fused && c.isSplit(n.Src[0]) {
			c.matmulSplit(n, n.Dst, nil)
			return true
		}
	case compute.OpAdd:
		if r, ok := c.fuse.residual[n]; ok && c.isSplit(r.mm.Src[0]) {
			c.matmulSplit(r.mm, n.Dst, r.res)
			return true
		}
	case compute.OpGLU:
		if gu, ok := c.fuse.swiglu[n]; ok && (c.isSplit(gu[0].Src[0]) || c.isSplit(gu[1].Src[0])) {
			c.swigluSplit(gu[0], gu[1], n)
			return true
		}
	}
	return false
}

// getRowsSplit is get_rows with one dispatch per part.
func (c *compiler) getRowsSplit(n *compute.Node) {
	t, dst := n.Src[0], n.Dst
	w := c.weightOf(t)
	for _, p := range w.parts {
		first, nr := u32(p.first), u32(p.rows)
		scales(c.dispatch(shaders.Key{Op: shaders.OpGetRows, Weight: t.Type}, shaders.Shape{M: dst.Ne[1], K: t.Ne[0]}, dynRows(dst),
			func(s *compute.Step) shaders.Params {
				return shaders.GetRowsParams{K: u32(t.Ne[0]), M: u32(rows(dst, s)), Rows: nr, First: first, Total: u32(t.Ne[1])}
			}, partRef(p), bref{kind: refTokens}, c.act(dst)), dst, true, false)
	}
}

// matmulSplit lowers MatMul n (+ bias) (+ res) into dst part by part.
func (c *compiler) matmulSplit(n *compute.Node, dst, res *compute.Tensor) {
	t, x := n.Src[0], n.Src[1]
	w := c.weightOf(t)
	bias := n.Src[2] != nil
	if x.Ne[1] == 1 {
		for _, p := range w.parts {
			key := shaders.Key{Op: shaders.OpMatvec, Weight: t.Type, Bias: bias, Residual: res != nil}
			binds := []bref{partRef(p), c.act(x), rowSlice(c.act(dst), p)}
			if bias {
				binds = append(binds, rowSlice(c.small(n.Src[2]), p))
			}
			if res != nil {
				binds = append(binds, rowSlice(c.act(res), p))
			}
			nx, eps, _ := c.normInput(n, &key, &binds)
			binds[1] = c.act(nx)
			nr := u32(p.rows)
			c.dispatch(key, shaders.Shape{N: p.rows}, false,
				func(*compute.Step) shaders.Params {
					return shaders.MatvecParams{K: u32(t.Ne[0]), N: nr, Eps: eps}
				}, binds...)
		}
		return
	}
	if c.err != nil {
		return
	}
	rw := webgpu.UsageStorage | webgpu.UsageCopySrc | webgpu.UsageCopyDst
	if c.split.scratch == nil {
		c.split.scratch = c.buffer("split_scratch", c.split.scratchSize, rw)
	}
	if res != nil && c.split.full == nil {
		c.split.full = c.buffer("split_full", c.split.fullSize, rw)
	}
	if c.err != nil {
		return
	}
	sc := c.split.scratch
	align := uint64(max(256, c.b.d.Limits().MinStorageBufferOffsetAlignment))
	m, nTot := uint64(x.Ne[1]), uint64(t.Ne[1])
	type block struct {
		p   wpart
		off uint64
	}
	var blocks []block
	var off uint64
	for _, p := range w.parts {
		size := m * uint64(p.rows) * 4
		out := bref{buf: sc, off: off, size: pad16(size)}
		binds := []bref{partRef(p), c.act(x), out}
		if bias {
			binds = append(binds, rowSlice(c.small(n.Src[2]), p))
		}
		nr := u32(p.rows)
		scales(c.dispatch(shaders.Key{Op: shaders.OpMatmul, Weight: t.Type, Bias: bias}, shaders.Shape{M: x.Ne[1], N: p.rows}, true,
			func(s *compute.Step) shaders.Params {
				return shaders.MatmulParams{M: u32(rows(x, s)), N: nr, K: u32(t.Ne[0])}
			}, binds...), x, true, false)
		blocks = append(blocks, block{p, off})
		off += (size + align - 1) / align * align
	}
	// The copies go into dst, or with a residual into the full scratch,
	// which the add then reads with res.
	to := c.act(dst)
	if res != nil {
		to = bref{buf: c.split.full, size: pad16(m * nTot * 4)}
	}
	for _, b := range blocks {
		rowBytes := uint64(b.p.rows) * 4
		for r := range m {
			c.copyBuf(bref{buf: sc, off: b.off + r*rowBytes}, bref{buf: to.buf, off: to.off + (r*nTot+uint64(b.p.first))*4}, rowBytes)
		}
	}
	if res != nil {
		scales(c.dispatch(shaders.Key{Op: shaders.OpAdd}, shaders.Shape{N: dst.Elems()}, dynRows(dst),
			func(s *compute.Step) shaders.Params {
				return shaders.EltwiseParams{N: u32(rows(dst, s) * dst.Ne[0])}
			}, to, c.act(res), c.act(dst)), dst, false, true)
	}
}

// swigluSplit is the SwiGLU (or GeGLU) matvec of GLU node glu part by
// part: gate and up have the same shape and format, so their plans split
// them at the same rows.
func (c *compiler) swigluSplit(gate, up, glu *compute.Node) {
	wg, wu, dst := c.weightOf(gate.Src[0]), c.weightOf(up.Src[0]), glu.Dst
	act, ok := c.gluAct(glu)
	if !ok {
		return
	}
	if len(wg.parts) != len(wu.parts) {
		c.fail(&Error{gate.Src[0].Name, fmt.Sprintf("split in %d parts but %s in %d: the fused SwiGLU matvec needs equal splits", len(wg.parts), up.Src[0].Name, len(wu.parts))})
		return
	}
	t := gate.Src[0]
	for i, p := range wg.parts {
		q := wu.parts[i]
		if q.first != p.first || q.rows != p.rows {
			c.fail(&Error{t.Name, fmt.Sprintf("part %d holds rows %d+%d but %s's rows %d+%d: the fused SwiGLU matvec needs equal splits", i, p.first, p.rows, up.Src[0].Name, q.first, q.rows)})
			return
		}
		key := shaders.Key{Op: shaders.OpMatvec, Weight: t.Type, SwiGLU: true, Act: act}
		var extra []bref
		x, eps, _ := c.normInput(gate, &key, &extra)
		nr := u32(p.rows)
		c.dispatch(key, shaders.Shape{N: p.rows}, false,
			func(*compute.Step) shaders.Params {
				return shaders.MatvecParams{K: u32(t.Ne[0]), N: nr, Eps: eps}
			},
			append([]bref{partRef(p), c.act(x), rowSlice(c.act(dst), p), partRef(q)}, extra...)...)
	}
}
