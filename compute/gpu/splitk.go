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
	if c.splitK == nil {
		c.splitK = map[uint64]*webgpu.Buffer{}
	}
	sc := c.splitK[size]
	if sc == nil {
		sc = c.buffer("splitk_partials", size, webgpu.UsageStorage)
		if c.err != nil {
			return true
		}
		c.splitK[size] = sc
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
