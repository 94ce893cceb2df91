package webgpu

import (
	"context"
	"fmt"
)

// Readback is a ring of small map-read buffers for reading a few bytes (the
// sampled token id) every step without stalling: step i's result is copied
// into slot i mod N, the ring maps it once the GPU is done, and the caller
// can submit step i+1 before reading step i. Results are read in order.
// A Readback, like the Tapes that write into it, belongs to one goroutine.
type Readback struct {
	d     *Device
	label string
	size  uint64
	slots []*rbSlot
	head  int // oldest pending slot
	n     int // pending slots (claimed by a Run, not yet read)
}

type rbSlot struct {
	rb  *Readback
	buf *Buffer
	st  rbState // backend map state
}

// NewReadback creates a ring of slots buffers of size bytes each (size is
// rounded up to 4). Two or three slots are enough to keep one step in flight.
func (d *Device) NewReadback(label string, size uint64, slots int) (*Readback, error) {
	if slots < 1 || slots > 64 {
		return nil, invalid("NewReadback", label, "slots", "%d not in [1, 64]", slots)
	}
	if size == 0 || size > 1<<20 {
		return nil, invalid("NewReadback", label, "size", "%d not in [1, 1 MiB]", size)
	}
	r := &Readback{d: d, label: label, size: (size + 3) &^ 3}
	for i := 0; i < slots; i++ {
		b, err := d.CreateBuffer(fmt.Sprintf("%s[%d]", label, i), r.size, UsageMapRead|UsageCopyDst)
		if err != nil {
			for _, s := range r.slots {
				s.buf.Destroy()
			}
			return nil, err
		}
		r.slots = append(r.slots, &rbSlot{rb: r, buf: b})
	}
	return r, nil
}

// Size returns the bytes per result.
func (r *Readback) Size() uint64 { return r.size }

// Pending returns how many results were submitted and not yet read.
func (r *Readback) Pending() int { return r.n }

// claim returns the slot the next commit will fill, counting slots already
// claimed by the same Run.
func (r *Readback) claim(already []*rbSlot) (*rbSlot, error) {
	k := r.n
	for _, s := range already {
		if s.rb == r {
			k++
		}
	}
	if k >= len(r.slots) {
		return nil, ErrReadbackFull
	}
	return r.slots[(r.head+k)%len(r.slots)], nil
}

func (r *Readback) commit(s *rbSlot) {
	r.n++
	s.buf.mapped = true
}

// Read waits for the oldest pending result and copies it into dst, which
// must hold Size() bytes. It allocates nothing.
func (r *Readback) Read(ctx context.Context, dst []byte) error {
	if r.n == 0 {
		return ErrReadbackEmpty
	}
	if uint64(len(dst)) < r.size {
		return invalid("Read", r.label, "dst", "%d bytes, need %d", len(dst), r.size)
	}
	if err := r.d.usable(); err != nil {
		return err
	}
	s := r.slots[r.head]
	if err := r.d.be.rbFinish(ctx, s, dst[:r.size]); err != nil {
		if l := r.d.Lost(); l != nil {
			return l
		}
		if ctx.Err() != nil {
			return err // the result may still come: Read again
		}
		// The map failed: this result is lost. Unmap (which also cancels a
		// pending map) so the slot can be submitted again, and move on.
		r.d.be.rbAbandon(s)
		s.buf.mapped = false
		r.head = (r.head + 1) % len(r.slots)
		r.n--
		return fmt.Errorf("webgpu: readback %q: %w", r.label, err)
	}
	s.buf.mapped = false
	r.head = (r.head + 1) % len(r.slots)
	r.n--
	return nil
}
