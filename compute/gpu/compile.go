package gpu

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/shaders"
	"github.com/webgguf/webgguf/webgpu"
)

// refKind says which buffer a binding refers to before the step buffer,
// whose layout depends on the number of dispatches, exists.
type refKind uint8

const (
	refBuf       refKind = iota // buf at off, size
	refParams                   // the dispatch's own uniform slot
	refTokens                   // the token ids in the step buffer
	refOutRows                  // the output rows in the step buffer
	refPositions                // Pos0+i for each token row, in the step buffer
	refZeros                    // B zeros in the step buffer (row 0 of a table)
)

type bref struct {
	kind      refKind
	buf       *webgpu.Buffer
	off, size uint64
}

// desc is a dispatch (or, with kern nil, a buffer copy) being lowered.
type desc struct {
	kern   shaders.Kernel
	label  string
	grid   [3]uint32
	binds  []bref
	dyn    bool
	params func(s *compute.Step) shaders.Params
	slot   int
	// rowT, when set, is the token-row tensor the grid scales with: the
	// shape's M (scaleM) or N (scaleN) is proportional to rowT's rows, so
	// a step of few tokens launches a grid for only a few rows (kernels
	// like the tiled matmul do not exit early on rows past M).
	rowT           *compute.Tensor
	shape          shaders.Shape
	scaleM, scaleN bool
	// sampler is "" for the graph, or the sampling kernel ("argmax",
	// "top_k") recorded only into the tapes that sample.
	sampler string
	// attn is the attention tape variant (attn_decode.go) the op belongs to.
	attn uint8
	// out is the logits-row variant (lmhead.go) the op belongs to.
	out uint8
	// buffer copy
	src, dst       *webgpu.Buffer
	srcOff, dstOff uint64
	size           uint64
}

// compiler lowers one graph; its fields become the program's.
type compiler struct {
	fuse  fusions
	b     *Backend
	p     *program
	descs []*desc
	err   error
	split splitState // split.go
	// splitK holds the split-K matmuls' partial-product buffers by size
	// (splitk.go); matmuls of one shape share one.
	splitK map[uint64]*webgpu.Buffer
	// kv is the element type of the graph's KV caches (graphKV), the KV
	// of every kernel key that reads or writes them.
	kv gguf.GGMLType
	// mergeX maps an attention output whose reader merges the split
	// partials itself (mergex.go) to those partials.
	mergeX map[*compute.Tensor]mergeXSrc
}

// Compile lowers g into kernels and records it into a tape; weights must be
// loaded and caches allocated. It creates every GPU object the program
// will use.
func (b *Backend) Compile(g *compute.Graph) (compute.Program, error) {
	if err := g.Err(); err != nil {
		return nil, err
	}
	if g.Logits == nil {
		return nil, &Error{"graph", "no logits (SetLogits not called)"}
	}
	b.mu.Lock()
	closed := b.closed
	b.mu.Unlock()
	if closed {
		return nil, &Error{"backend", "closed"}
	}
	if err := b.packAll(); err != nil { // repack.go
		return nil, err
	}
	kv, err := b.graphKV(g)
	if err != nil {
		return nil, err
	}
	p := &program{b: b, g: g, d: b.d, nVocab: g.Logits.Ne[0], outMax: g.Logits.Ne[1], nCtx: -1}
	c := &compiler{b: b, p: p, kv: kv, fuse: planFusions(g, b.plainNorm(), kv, b.postInOK()), mergeX: map[*compute.Tensor]mergeXSrc{}}
	c.unfuseSplit()
	if err := c.prepare(); err != nil {
		p.destroy()
		return nil, err
	}
	for _, n := range g.Nodes {
		if c.fuse.by[n] != nil || c.fuse.lead[n] != nil {
			continue // lowered by the node that absorbs or leads it
		}
		c.lower(n)
		if c.err != nil {
			p.destroy()
			return nil, c.err
		}
	}
	c.samplers()
	if err := c.finish(); err != nil {
		p.destroy()
		return nil, err
	}
	// In the browser the pipelines compile concurrently in the background;
	// their errors belong to Compile, not to the first Run.
	if err := b.d.WaitPipelines(); err != nil {
		p.destroy()
		return nil, err
	}
	b.mu.Lock()
	b.progs = append(b.progs, p)
	b.mem += p.mem
	b.mu.Unlock()
	return p, nil
}

// graphKV is the element type of g's caches, which must be one (f32 where
// none is allocated yet: prepare reports that).
func (b *Backend) graphKV(g *compute.Graph) (gguf.GGMLType, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	kv, seen := gguf.TypeF32, false
	for _, n := range g.Nodes {
		for _, s := range n.Src {
			if s == nil || s.Kind != compute.Cache {
				continue
			}
			t, ok := b.cacheKV[s]
			if !ok {
				continue
			}
			if seen && t != kv {
				return 0, &Error{s.Name, fmt.Sprintf("cache of %s, another of the graph is %s (SetKVType between AllocCache calls)", t, kv)}
			}
			kv, seen = t, true
		}
	}
	return kv, nil
}

func (c *compiler) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// buffer creates a program-owned buffer.
func (c *compiler) buffer(label string, size uint64, usage webgpu.Usage) *webgpu.Buffer {
	if c.err != nil {
		return nil
	}
	buf, err := c.b.d.CreateBuffer(label, size, usage)
	if err != nil {
		c.fail(err)
		return nil
	}
	c.p.bufs = append(c.p.bufs, buf)
	c.p.mem += int64(buf.Size())
	return buf
}

// prepare resolves caches and sizes and creates the arena, the attention
// scratch and the readback rings.
func (c *compiler) prepare() error {
	p, b, g := c.p, c.b, c.p.g
	maxPartial, longest := 0, -1
	b.mu.Lock()
	for _, n := range g.Nodes {
		for _, s := range n.Src {
			switch {
			case s == nil:
			case s.Kind == compute.Weight:
				if _, ok := b.weights[s]; !ok {
					b.mu.Unlock()
					return &Error{s.Name, fmt.Sprintf("used by %s but not loaded", n.Op)}
				}
			case s.Kind == compute.Cache:
				if _, ok := b.caches[s]; !ok {
					b.mu.Unlock()
					return &Error{s.Name, fmt.Sprintf("used by %s but not allocated", n.Op)}
				}
				// The context is the ordinary caches' length; a ring
				// (compute.NewRingCache) is shorter and indexed modulo its
				// own length by each kernel (cacheLen).
				longest = max(longest, s.Ne[1])
				if s.Ring {
					break
				}
				if p.nCtx >= 0 && p.nCtx != s.Ne[1] {
					b.mu.Unlock()
					return &Error{s.Name, fmt.Sprintf("cache length %d differs from %d", s.Ne[1], p.nCtx)}
				}
				p.nCtx = s.Ne[1]
			}
		}
		if n.Op == compute.OpKVWrite || n.Op == compute.OpAttention {
			kc, vc := n.Src[len(n.Src)-2], n.Src[len(n.Src)-1]
			if kc.Ne[1] != vc.Ne[1] || kc.Ring != vc.Ring {
				b.mu.Unlock()
				return &Error{vc.Name, fmt.Sprintf("%s's K and V caches differ in length (%d, %d) or ring", n.Op, kc.Ne[1], vc.Ne[1])}
			}
		}
	}
	b.mu.Unlock()
	if longest < 0 {
		return &Error{"graph", "no KV cache"}
	}
	if p.nCtx < 0 { // only rings: positions are not bounded by a cache
		p.nCtx = math.MaxInt32
	}
	p.splits, p.splitsBase, p.splitsFrom = decodeSplits(longest, g, b.decodeAttention(), b.d.Info().Fallback) // attn_decode.go
	for _, n := range g.Nodes {
		if n.Op == compute.OpAttention {
			maxPartial = max(maxPartial, n.Attn.NHead*p.splits*(n.Attn.HeadDim+2))
		}
	}
	total := uint64(p.outMax) * uint64(p.nVocab) * 4
	p.chunk = min(uint64(1<<20), (total+3)&^3)
	nChunks := int((total + p.chunk - 1) / p.chunk)
	rw := webgpu.UsageStorage | webgpu.UsageCopySrc | webgpu.UsageCopyDst
	c.layoutActivations()
	if maxPartial > 0 {
		p.partial = c.buffer("attn_partial", pad16(uint64(maxPartial)*4), rw)
	}
	p.result = c.buffer("sample_out", 2*maxTopK*4, rw)
	if g := shaders.TopKSplits(p.nVocab); g > 1 {
		p.topLists = c.buffer("top_k_lists", uint64(g)*2*maxTopK*4, rw)
	}
	if c.err != nil {
		return c.err
	}
	for i := range nChunks {
		rb, err := b.d.NewReadback(fmt.Sprintf("logits%d", i), p.chunk, 1)
		if err != nil {
			return err
		}
		p.rbs = append(p.rbs, rb)
		p.mem += int64(p.chunk)
	}
	var err error
	if p.argRB, err = b.d.NewBatchReadback("argmax", 8, maxArgmaxDepth, maxReadbackBatch); err != nil {
		return err
	}
	if err = p.argRB.SetBatch(p.readbackBatch()); err != nil {
		return err
	}
	if p.topRB, err = b.d.NewReadback("top_k", 2*maxTopK*4, topKDepth); err != nil {
		return err
	}
	p.rbBytes = make([]byte, uint64(nChunks)*p.chunk)
	return nil
}

// act binds activation t's whole static extent, padded to 16 bytes
// (kernels reading vec4 stay inside its buffer, sized likewise).
func (c *compiler) act(t *compute.Tensor) bref {
	return bref{buf: c.p.acts[t], size: pad16(uint64(t.Elems()) * 4)}
}

// weightRef binds a weight's bytes in file format (a weight split by rows
// is lowered part by part in split.go).
func (c *compiler) weightRef(t *compute.Tensor) bref { return c.wholeWeight(t) }

// small returns a 1-D weight expanded to f32, creating it on first use.
func (c *compiler) small(t *compute.Tensor) bref {
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	w := c.b.weights[t]
	if w.f32 == nil {
		f, err := gguf.Dequantize(t.Type, w.host, t.Ne[0])
		if err != nil {
			c.fail(&Error{t.Name, err.Error()})
			return bref{}
		}
		buf, err := c.b.d.CreateBuffer("w32:"+t.Name, pad16(uint64(len(f))*4), webgpu.UsageStorage|webgpu.UsageCopyDst)
		if err != nil {
			c.fail(err)
			return bref{}
		}
		if err := c.b.d.WriteBuffer(buf, 0, f32Bytes(f)); err != nil {
			buf.Destroy()
			c.fail(err)
			return bref{}
		}
		w.f32 = buf
		c.b.mem += int64(buf.Size())
	}
	return bref{buf: w.f32, size: w.f32.Size()}
}

// ones returns an all-ones f32 vector of n elements (RMSNorm without weight).
func (c *compiler) ones(n int) bref {
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	buf, ok := c.b.ones[n]
	if !ok {
		f := make([]float32, n)
		for i := range f {
			f[i] = 1
		}
		var err error
		if buf, err = c.b.d.CreateBuffer(fmt.Sprintf("ones%d", n), pad16(uint64(n)*4), webgpu.UsageStorage|webgpu.UsageCopyDst); err != nil {
			c.fail(err)
			return bref{}
		}
		if err := c.b.d.WriteBuffer(buf, 0, f32Bytes(f)); err != nil {
			c.fail(err)
			return bref{}
		}
		c.b.ones[n] = buf
		c.b.mem += int64(buf.Size())
	}
	return bref{buf: buf, size: buf.Size()}
}

func (c *compiler) cache(t *compute.Tensor) bref {
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	buf := c.b.caches[t]
	return bref{buf: buf, size: buf.Size()}
}

// dispatch adds a kernel launch. dyn says whether params depend on the step.
func (c *compiler) dispatch(key shaders.Key, shape shaders.Shape, dyn bool, params func(s *compute.Step) shaders.Params, binds ...bref) *desc {
	if c.err != nil {
		return nil
	}
	key.Packed, key.Ragged = c.readsPacked(binds) // repack.go
	key = c.tuned(key, shape, params)             // tune.go
	k, err := shaders.Build(key)
	if err != nil {
		c.fail(err)
		return nil
	}
	if uint32(k.WorkgroupBytes) > c.b.d.Limits().MaxComputeWorkgroupStorageSize {
		c.fail(&Error{key.Op.String(), fmt.Sprintf("kernel needs %d bytes of workgroup memory, device has %d", k.WorkgroupBytes, c.b.d.Limits().MaxComputeWorkgroupStorageSize)})
		return nil
	}
	x, y, z := k.Dispatch(shape)
	if len(binds)+1 != len(k.Bindings) {
		c.fail(&Error{key.Op.String(), fmt.Sprintf("lowering gives %d bindings, kernel has %d", len(binds)+1, len(k.Bindings))})
		return nil
	}
	for i, r := range binds {
		if r.kind == refBuf && r.buf == nil {
			c.fail(&Error{key.Op.String(), fmt.Sprintf("binding %s has no buffer", k.BindingNames[i+1])})
			return nil
		}
	}
	ds := &desc{kern: k, label: key.Op.String(), grid: [3]uint32{x, y, z}, shape: shape,
		binds: append([]bref{{kind: refParams}}, binds...), dyn: dyn, params: params}
	c.descs = append(c.descs, ds)
	return ds
}

// scales marks ds's grid as proportional to the rows of t in M and/or N,
// when t holds token rows (more than one).
func scales(ds *desc, t *compute.Tensor, m, n bool) {
	if ds != nil && t.Rows == compute.RowsTokens && t.Ne[1] > 1 {
		ds.rowT, ds.scaleM, ds.scaleN = t, m, n
	}
}

// copyBuf adds a buffer copy.
func (c *compiler) copyBuf(src bref, dst bref, size uint64) {
	if c.err != nil {
		return
	}
	c.descs = append(c.descs, &desc{src: src.buf, srcOff: src.off, dst: dst.buf, dstOff: dst.off, size: size})
}

// finish lays out the step buffer (ids, then the step-dependent parameter
// slots, then the static ones), writes the static parameters, creates the
// pipelines and bind groups and records the tape.
func (c *compiler) finish() error {
	p, d := c.p, c.b.d
	lim := d.Limits()
	align := uint64(max(256, lim.MinUniformBufferOffsetAlignment, lim.MinStorageBufferOffsetAlignment))
	alignUp := func(n uint64) uint64 { return (n + align - 1) / align * align }
	p.tokOff = 0
	p.outOff = alignUp(uint64(p.g.B) * 4)
	p.posOff = alignUp(p.outOff + uint64(p.outMax)*4)
	p.zeroOff = alignUp(p.posOff + uint64(p.g.B)*4)
	off := alignUp(p.zeroOff + uint64(p.g.B)*4)
	var dyn, static []*desc
	for _, ds := range c.descs {
		if ds.kern.WGSL == "" {
			continue
		}
		if ds.dyn {
			dyn = append(dyn, ds)
		} else {
			static = append(static, ds)
		}
	}
	for _, ds := range append(dyn, static...) {
		p.slots = append(p.slots, slot{off: off, fn: ds.params})
		ds.slot = len(p.slots) - 1
		off += align
	}
	p.nDyn = len(dyn)
	p.dynEnd = off - uint64(len(static))*align
	p.slotSize = align
	p.step = c.buffer("step", off, webgpu.UsageUniform|webgpu.UsageStorage|webgpu.UsageCopyDst)
	if c.err != nil {
		return c.err
	}
	p.stepBytes = make([]byte, off)
	var zero compute.Step
	for _, s := range p.slots[p.nDyn:] {
		copy(p.stepBytes[s.off:], s.fn(&zero).Bytes())
	}
	if err := d.WriteBuffer(p.step, p.dynEnd, p.stepBytes[p.dynEnd:]); err != nil {
		return err
	}
	for _, ds := range c.descs {
		if ds.kern.WGSL == "" {
			p.ops = append(p.ops, recOp{src: ds.src, srcOff: ds.srcOff, dst: ds.dst, dstOff: ds.dstOff, size: ds.size})
			continue
		}
		layout := make([]webgpu.BindingKind, len(ds.kern.Bindings))
		for i, k := range ds.kern.Bindings {
			layout[i] = webgpu.BindingKind(k)
		}
		pipe, err := d.CachedComputePipeline(ds.kern.Key.String(), ds.label, ds.kern.WGSL, ds.kern.Entry, layout)
		if err != nil {
			return err
		}
		binds := make([]webgpu.Binding, len(ds.binds))
		for i, r := range ds.binds {
			switch r.kind {
			case refBuf:
				binds[i] = webgpu.Binding{Buffer: r.buf, Offset: r.off, Size: r.size}
			case refParams:
				binds[i] = webgpu.Binding{Buffer: p.step, Offset: p.slots[ds.slot].off, Size: align}
			case refTokens:
				binds[i] = webgpu.Binding{Buffer: p.step, Offset: p.tokOff, Size: pad16(uint64(p.g.B) * 4)}
			case refOutRows:
				binds[i] = webgpu.Binding{Buffer: p.step, Offset: p.outOff, Size: pad16(uint64(p.outMax) * 4)}
			case refPositions:
				binds[i] = webgpu.Binding{Buffer: p.step, Offset: p.posOff, Size: pad16(uint64(p.g.B) * 4)}
			case refZeros:
				binds[i] = webgpu.Binding{Buffer: p.step, Offset: p.zeroOff, Size: pad16(uint64(p.g.B) * 4)}
			}
		}
		bg, err := d.CreateBindGroup(pipe, binds)
		if err != nil {
			return fmt.Errorf("gpu: %s: %w", ds.label, err)
		}
		op := recOp{pipe: pipe, bg: bg, grid: ds.grid, attn: ds.attn, out: ds.out}
		if ds.rowT != nil {
			k, sh, b, sm, sn := ds.kern, ds.shape, ds.rowT.Ne[1], ds.scaleM, ds.scaleN
			op.gridAt = func(rows int) [3]uint32 {
				sh := sh // a copy per call: the closure is called for every variant
				if sm {
					sh.M = sh.M / b * rows
				}
				if sn {
					sh.N = sh.N / b * rows
				}
				x, y, z := k.Dispatch(sh)
				return [3]uint32{x, y, z}
			}
		}
		switch ds.sampler {
		case "argmax":
			p.argOp = op
		case "top_k":
			p.topOps = append(p.topOps, op)
		default:
			p.ops = append(p.ops, op)
		}
	}
	p.tapes = map[tapeKey]recorded{}
	_, err := p.tape(tapeKey{})
	return err
}

// f32Bytes is the little-endian encoding of f.
func f32Bytes(f []float32) []byte {
	out := make([]byte, 4*len(f))
	for i, v := range f {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(v))
	}
	return out
}
