package gpu

import (
	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/shaders"
)

// oneBinding returns one binding of the buffer span that holds all of ws
// (a SwiGLU matmul's gate and up, a QKV matmul's Q, K and V) with where
// each starts in it, in the matmul's weight vectors (4 elements), for a
// matmul keyed shaders.Key.OneW; ok is false where the matmul cannot take
// them so: block formats or a K the vec4 reads (shaders.MatmulXVec) do not
// serve, a weight in parts or in another buffer, or a span over the
// binding limit. Weights are planned in few large buffers
// (PlanWeights), so a layer's matrices usually share one.
func (c *compiler) oneBinding(ws ...*compute.Tensor) (b bref, off [3]uint32, ok bool) {
	c.b.mu.Lock()
	off1 := c.b.noOneBinding
	c.b.mu.Unlock()
	t, kdim := ws[0].Type, ws[0].Ne[0]
	if off1 || t.BlockSize() != 1 || len(ws) > len(off) || !shaders.MatmulXVec(shaders.Key{Op: shaders.OpMatmul}, kdim).XVec {
		return bref{}, off, false
	}
	vec := uint64(4 * t.TypeSize())
	parts := make([]wpart, len(ws))
	for i, w := range ws {
		pw := c.weightOf(w)
		if pw == nil || pw.split() || w.Type != t || w.Ne[0] != kdim {
			return bref{}, off, false
		}
		parts[i] = pw.parts[0]
		if parts[i].buf != parts[0].buf || parts[i].off%vec != 0 {
			return bref{}, off, false
		}
	}
	lo, hi := parts[0].off, parts[0].off+parts[0].size
	for _, p := range parts[1:] {
		lo, hi = min(lo, p.off), max(hi, p.off+p.size)
	}
	if hi-lo > c.b.d.Limits().MaxStorageBufferBindingSize {
		return bref{}, off, false
	}
	for i, p := range parts {
		off[i] = uint32((p.off - lo) / vec)
	}
	c.b.mu.Lock()
	c.b.stats.OneBinding++
	c.b.mu.Unlock()
	return bref{buf: parts[0].buf, off: lo, size: hi - lo}, off, true
}

// SetMatmulOneBinding turns off (or back on) binding a SwiGLU or QKV
// prefill matmul's matrices once (shaders Key.OneW) for programs compiled
// afterwards; each matrix then has a binding of its own, as for weights
// in different buffers. It is on by default: H200, Llama-1B F16 pp512,
// SwiGLU matmul 935 → 856 µs a layer (a staging slot's load was in a
// branch between the bindings).
func (b *Backend) SetMatmulOneBinding(on bool) {
	b.mu.Lock()
	b.noOneBinding = !on
	b.mu.Unlock()
}
