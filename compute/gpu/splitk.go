package gpu

import (
	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/shaders"
	"github.com/webgguf/webgguf/webgpu"
)

// SetMatmulSplitK turns the split-K prefill matmul (shaders Key.SplitK,
// chosen by shaders.MatmulTuned for long-K, narrow-N products such as
// ffn_down) on or off for programs compiled afterwards, on software
// adapters too (tests and tuning). By default it is on for hardware
// adapters only, which keep the untuned matmul (see tuned).
func (b *Backend) SetMatmulSplitK(on bool) {
	b.mu.Lock()
	b.splitK = &on
	b.mu.Unlock()
}

// matmulSplitK lowers the prefill product of MatMul node n (whole weight,
// several token rows) as a split-K matmul writing SplitK partial products
// to a scratch buffer, then split_sum adding them into dst, when
// shaders.MatmulTuned picks a split for its shape; it reports whether it
// did.
func (c *compiler) matmulSplitK(n *compute.Node, dst, res *compute.Tensor) bool {
	w, x := n.Src[0], n.Src[1]
	c.b.mu.Lock()
	on := !c.b.d.Info().Fallback
	if c.b.splitK != nil {
		on = *c.b.splitK
	}
	c.b.mu.Unlock()
	if !on || c.err != nil {
		return false
	}
	key := shaders.MatmulTuned(shaders.Key{Op: shaders.OpMatmul, Weight: w.Type, Bias: n.Src[2] != nil, Residual: res != nil}, x.Ne[1], w.Ne[1], w.Ne[0])
	if key.SplitK < 2 {
		return false
	}
	nOut, kdim := w.Ne[1], w.Ne[0]
	stride := x.Ne[1] * nOut // one slice per compiled row block
	size := pad16(uint64(stride) * uint64(key.SplitK) * 4)
	sc := c.splitKPartials(size)
	if sc == nil {
		return true
	}
	parts := bref{buf: sc, size: size}
	binds := []bref{c.weightRef(w), c.act(x), parts}
	if n.Src[2] != nil {
		binds = append(binds, c.small(n.Src[2]))
	}
	if res != nil {
		binds = append(binds, c.act(res))
	}
	scales(c.dispatch(key, shaders.Shape{M: x.Ne[1], N: nOut}, true,
		func(s *compute.Step) shaders.Params {
			return shaders.MatmulParams{M: u32(rows(x, s)), N: u32(nOut), K: u32(kdim), Stride: u32(stride)}
		}, binds...), x, true, false)
	scales(c.dispatch(shaders.Key{Op: shaders.OpSplitSum, SplitK: key.SplitK}, shaders.Shape{N: stride}, true,
		func(s *compute.Step) shaders.Params {
			return shaders.SplitSumParams{N: u32(rows(x, s) * nOut), Stride: u32(stride)}
		}, parts, c.act(dst)), x, false, true)
	return true
}

// lowerQKVMatmul lowers the Q, K and V MatMuls of several rows (prefill;
// weights of one K: block formats, or three of one plain format;
// planFusions) as one QKV matmul
// (shaders.Key.QKV) of Nq + Nk + Nv columns: Llama-3.2-1B's K and V
// projections (N = 512) and Qwen2.5-0.5B's (N = 128) alone give few
// workgroups, and the three dispatches (with their split_sums) become one
// or two (H100, q4_0 pp512 step: Llama 298 → 262 µs a layer, Qwen 111
// → 71). Split (shaders.MatmulTuned), the partials go to
// the split-K scratch and split_sum scatters them to the three outputs;
// unsplit, the epilogue does. A device whose storage-binding limit is
// below the kernel's gets the three matmuls.
func (c *compiler) lowerQKVMatmul(q, k, v *compute.Node) {
	wq, wk, wv, x := q.Src[0], k.Src[0], v.Src[0], q.Src[1]
	bias := q.Src[2] != nil
	nq, nk, nv, kdim := wq.Ne[1], wk.Ne[1], wv.Ne[1], wq.Ne[0]
	ntot := nq + nk + nv
	key := shaders.Key{Op: shaders.OpMatmul, Weight: wq.Type, WeightK: wk.Type, WeightV: wv.Type, QKV: true, Bias: bias}
	c.b.mu.Lock()
	split := !c.b.d.Info().Fallback
	if c.b.splitK != nil {
		split = *c.b.splitK
	}
	c.b.mu.Unlock()
	if split {
		key = shaders.MatmulTuned(key, x.Ne[1], ntot, kdim)
	}
	// Q, K and V through one binding where they share a buffer
	// (Key.OneW), else each through its own.
	wone, off, one := c.oneBinding(wq, wk, wv)
	key.OneW = one
	storage := 5 // w, x, y, wk, wv
	if one {
		storage = 3
	}
	if bias {
		storage += 3
	}
	if key.SplitK < 2 {
		storage += 2 // yk, yv
	}
	if uint32(storage) > c.b.d.Limits().MaxStorageBuffersPerShaderStage {
		c.matmul(q)
		c.matmul(k)
		c.matmul(v)
		return
	}
	var wbinds []bref
	if !one {
		wbinds = []bref{c.weightRef(wk), c.weightRef(wv)}
	}
	if bias {
		wbinds = append(wbinds, c.small(k.Src[2]), c.small(v.Src[2]))
	}
	first := func(y bref) []bref {
		w := wone
		if !one {
			w = c.weightRef(wq)
		}
		b := []bref{w, c.act(x), y}
		if bias {
			b = append(b, c.small(q.Src[2]))
		}
		return append(b, wbinds...)
	}
	if key.SplitK < 2 {
		key.SplitK = 0
		binds := append(first(c.act(q.Dst)), c.act(k.Dst), c.act(v.Dst))
		scales(c.dispatch(key, shaders.Shape{M: x.Ne[1], N: ntot}, true,
			func(s *compute.Step) shaders.Params {
				return shaders.MatmulParams{M: u32(rows(x, s)), N: u32(ntot), K: u32(kdim), Nq: u32(nq), Nk: u32(nk), Off: off}
			}, binds...), x, true, false)
		return
	}
	stride := x.Ne[1] * ntot
	size := pad16(uint64(stride) * uint64(key.SplitK) * 4)
	sc := c.splitKPartials(size)
	if sc == nil {
		return
	}
	parts := bref{buf: sc, size: size}
	scales(c.dispatch(key, shaders.Shape{M: x.Ne[1], N: ntot}, true,
		func(s *compute.Step) shaders.Params {
			return shaders.MatmulParams{M: u32(rows(x, s)), N: u32(ntot), K: u32(kdim), Stride: u32(stride), Nq: u32(nq), Nk: u32(nk), Off: off}
		}, first(parts)...), x, true, false)
	scales(c.dispatch(shaders.Key{Op: shaders.OpSplitSum, SplitK: key.SplitK, QKV: true}, shaders.Shape{N: stride}, true,
		func(s *compute.Step) shaders.Params {
			return shaders.SplitSumParams{N: u32(rows(x, s) * ntot), Stride: u32(stride), Cols: u32(ntot), Nq: u32(nq), Nk: u32(nk)}
		}, parts, c.act(q.Dst), c.act(k.Dst), c.act(v.Dst)), x, false, true)
}

// splitKPartials returns the program's split-K partials buffer of size
// bytes, shared by every split matmul of that size (they run one after
// another); nil once the compiler has failed.
func (c *compiler) splitKPartials(size uint64) *webgpu.Buffer {
	if c.splitK == nil {
		c.splitK = map[uint64]*webgpu.Buffer{}
	}
	sc := c.splitK[size]
	if sc == nil {
		sc = c.buffer("splitk_partials", size, webgpu.UsageStorage)
		if c.err != nil {
			return nil
		}
		c.splitK[size] = sc
	}
	return sc
}
