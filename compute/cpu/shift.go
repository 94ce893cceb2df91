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

var _ compute.CacheIO = (*Backend)(nil)

// ReadCache copies rows 0..n-1 of each head of cache t (compute.CacheIO).
func (b *Backend) ReadCache(t *compute.Tensor, n int) ([]float32, error) {
	b.mu.Lock()
	c, ok := b.caches[t]
	b.mu.Unlock()
	dim, length, heads := t.Ne[0], t.Ne[1], t.Ne[2]
	if !ok || n < 0 || n > length {
		return nil, fmt.Errorf("cpu: read %d rows of cache %v", n, t)
	}
	out := make([]float32, 0, heads*n*dim)
	for h := range heads {
		out = append(out, c[h*length*dim:(h*length+n)*dim]...)
	}
	return out, nil
}

// WriteCache stores rows 0..n-1 of each head of cache t (compute.CacheIO).
func (b *Backend) WriteCache(t *compute.Tensor, n int, data []float32) error {
	b.mu.Lock()
	c, ok := b.caches[t]
	b.mu.Unlock()
	dim, length, heads := t.Ne[0], t.Ne[1], t.Ne[2]
	if !ok || n < 0 || n > length || len(data) != heads*n*dim {
		return fmt.Errorf("cpu: write %d rows (%d values) to cache %v", n, len(data), t)
	}
	for h := range heads {
		copy(c[h*length*dim:(h*length+n)*dim], data[h*n*dim:(h+1)*n*dim])
	}
	return nil
}
