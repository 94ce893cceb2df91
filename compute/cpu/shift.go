package cpu

import (
	"fmt"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
)

var _ compute.CacheShifter = (*Backend)(nil)

// ShiftCache moves rows of a cache down and re-rotates them when they are
// keys (compute.CacheShifter). Go's copy is a memmove, so overlapping
// ranges need no scratch.
func (b *Backend) ShiftCache(t *compute.Tensor, src, dst, n int, rp *compute.RopeParams, freqs *compute.Tensor) error {
	b.mu.Lock()
	c, ok := b.caches[t]
	var fw []byte
	if freqs != nil {
		fw = b.weights[freqs]
	}
	b.mu.Unlock()
	if !ok {
		return fmt.Errorf("cpu: shift: %v is not an allocated cache", t)
	}
	dim, length, heads := t.Ne[0], t.Ne[1], t.Ne[2]
	switch {
	case t.Ring:
		return fmt.Errorf("cpu: shift: %s is a ring cache", t.Name)
	case n < 0 || dst < 0 || dst >= src || src+n > length:
		return fmt.Errorf("cpu: shift: rows %d..%d to %d outside %s's %d rows", src, src+n, dst, t.Name, length)
	}
	var f []float32
	if rp != nil && freqs != nil {
		if fw == nil {
			return fmt.Errorf("cpu: shift: frequency weight %s not loaded", freqs.Name)
		}
		var err error
		if f, err = gguf.Dequantize(freqs.Type, fw, freqs.Ne[0]); err != nil {
			return fmt.Errorf("cpu: shift: weight %s: %w", freqs.Name, err)
		}
	}
	var p compute.RopeParams
	if rp != nil {
		p = *rp
		p.NHeads, p.HeadDim = 1, dim
		if p.NRot > dim || p.NRot%2 != 0 || (f != nil && len(f) < p.NRot/2) {
			return fmt.Errorf("cpu: shift: %d rotated dimensions for head size %d (%d frequency factors)", p.NRot, dim, len(f))
		}
	}
	for h := range heads {
		base := h * length * dim
		rows := c[base+dst*dim : base+(dst+n)*dim]
		copy(rows, c[base+src*dim:base+(src+n)*dim])
		if rp != nil {
			ropeStep(rows, rows, p, f, dst-src, 0)
		}
	}
	return nil
}
