package webgpu

import (
	"context"
	"fmt"
)

// Readback is a ring of small map-read buffers for reading a few bytes (the
// sampled token id) every step without stalling: step i's result is copied
// into a slot of the ring, the ring maps the slot once the GPU is done, and
// the caller can submit step i+1 before reading step i. Results are read
// in submission order. A Readback, like the Tapes that write into it,
// belongs to one goroutine.
//
// A batched ring (NewBatchReadback) puts several consecutive results into
// one slot at consecutive offsets and starts the slot's map only when the
// slot holds Batch() results (at the submit of the last one) or when Read
// needs a result of a slot whose map has not started (a flush). In the
// browser every map is a round trip through the GPU process (2-3 ms on
// the lent H100, longer than a 1B model's step), so a batch of B results
// pays that round trip once per B steps; natively a map costs tens of µs
// and the batch stays 1 (compute/gpu/readback_batch.go).
type Readback struct {
	d     *Device
	label string
	size  uint64 // bytes per result
	cap   int    // results a slot's buffer holds
	batch int    // results per slot before its map starts, in [1, cap]
	slots []*rbSlot
	head  int // slot of the oldest unread result
	tail  int // slot of the newest committed result
	used  int // slots holding unread results (head..tail, in ring order)
	n     int // results committed and not yet read
}

// rbSlot is one map-read buffer of the ring. Its life: results are
// committed into it (fill), its map starts (full batch or flush), the
// first Read copies its bytes out and unmaps it, the following Reads take
// the rest of its results from host, and once all are read it is free.
type rbSlot struct {
	rb      *Readback
	idx     int
	buf     *Buffer
	fill    int     // results committed into the slot
	read    int     // results read from it
	started bool    // its map was started
	got     bool    // its bytes are in host (the map finished and it is unmapped)
	err     error   // its map failed: each of its results reads as err
	host    []byte  // cap*size bytes for a batch's results; nil when cap is 1
	st      rbState // backend map state
}

// rbClaim is the place of one result a Run or Encode will commit: slot s
// at index i. last is set when that result fills the slot, so its map
// starts at the submit (Encoded.Submit compares whole claims, so an
// encoding made under another batch size is refused as stale).
type rbClaim struct {
	s    *rbSlot
	i    int
	last bool
}

// NewReadback creates a ring of slots buffers of size bytes each (size is
// rounded up to 4), one result per slot. Two or three slots are enough to
// keep one step in flight.
func (d *Device) NewReadback(label string, size uint64, slots int) (*Readback, error) {
	return d.NewBatchReadback(label, size, slots, 1)
}

// NewBatchReadback creates a ring of slots buffers that hold batch results
// of size bytes each (size rounded up to 4); SetBatch lowers the batch to
// as little as 1 without re-creating anything. A ring keeping D results in
// flight needs 1 + ceil((D-1)/batch) slots (D suffices at any batch).
func (d *Device) NewBatchReadback(label string, size uint64, slots, batch int) (*Readback, error) {
	if slots < 1 || slots > 64 {
		return nil, invalid("NewReadback", label, "slots", "%d not in [1, 64]", slots)
	}
	if batch < 1 || batch > 64 {
		return nil, invalid("NewReadback", label, "batch", "%d not in [1, 64]", batch)
	}
	if size == 0 || size > 1<<20 {
		return nil, invalid("NewReadback", label, "size", "%d not in [1, 1 MiB]", size)
	}
	r := &Readback{d: d, label: label, size: (size + 3) &^ 3, cap: batch, batch: batch}
	if r.size*uint64(batch) > 1<<20 {
		return nil, invalid("NewReadback", label, "batch", "%d results of %d bytes exceed 1 MiB", batch, r.size)
	}
	for i := 0; i < slots; i++ {
		b, err := d.CreateBuffer(fmt.Sprintf("%s[%d]", label, i), r.size*uint64(batch), UsageMapRead|UsageCopyDst)
		if err != nil {
			for _, s := range r.slots {
				s.buf.Destroy()
			}
			return nil, err
		}
		s := &rbSlot{rb: r, idx: i, buf: b}
		if batch > 1 {
			s.host = make([]byte, r.size*uint64(batch))
		}
		r.slots = append(r.slots, s)
	}
	// Nothing committed yet: the first result goes to slot 0 = tail+1.
	r.tail = slots - 1
	return r, nil
}

// Size returns the bytes per result.
func (r *Readback) Size() uint64 { return r.size }

// Pending returns how many results were submitted and not yet read.
func (r *Readback) Pending() int { return r.n }

// Batch returns the results per slot whose map starts at the submit.
func (r *Readback) Batch() int { return r.batch }

// SetBatch sets the results per slot, in [1, the batch given at creation].
// It fails while results are pending: a slot holds one batch size's
// results, and the ring's order must not change under them.
func (r *Readback) SetBatch(n int) error {
	if n < 1 || n > r.cap {
		return invalid("SetBatch", r.label, "batch", "%d not in [1, %d]", n, r.cap)
	}
	if r.n > 0 {
		return invalid("SetBatch", r.label, "batch", "%d results pending: read them first", r.n)
	}
	r.batch = n
	return nil
}

// open reports whether slot s can take one more result after fill: its
// map has not started, it holds some results, and fewer than a batch.
func (r *Readback) open(s *rbSlot, fill int) bool {
	return !s.started && fill > 0 && fill < r.batch
}

// claim returns the place the next commit will fill, counting the places
// already claimed by the same Run (a tape may read into one ring twice).
// The ring is full when the result needs a fresh slot and every slot holds
// unread results.
func (r *Readback) claim(already []rbClaim) (rbClaim, error) {
	k := 0
	for _, c := range already {
		if c.s.rb == r {
			k++
		}
	}
	s, fill, used := r.slots[r.tail], r.slots[r.tail].fill, r.used
	var c rbClaim
	for j := 0; j <= k; j++ {
		if j == 0 && r.open(s, fill) || j > 0 && fill < r.batch {
			c = rbClaim{s: s, i: fill}
		} else {
			if used >= len(r.slots) {
				return rbClaim{}, ErrReadbackFull
			}
			// Occupied slots run from head to tail, so the one after the
			// tail is free.
			s, fill = r.slots[(s.idx+1)%len(r.slots)], 0
			used++
			c = rbClaim{s: s}
		}
		fill++
	}
	c.last = fill == r.batch
	return c, nil
}

// commit records the result of claim c as submitted; it returns whether
// the slot is now full (its map is to start).
func (r *Readback) commit(c rbClaim) bool {
	s := c.s
	if s.fill == 0 {
		r.used++
	}
	s.fill++
	s.buf.mapped = true
	r.tail = s.idx
	r.n++
	return c.last
}

// start starts slot s's map (at the submit of its last result, or at a
// flush); atSubmit tells the backend that the submit itself already did
// (the browser starts those maps in the submit's JS call).
func (r *Readback) start(s *rbSlot, atSubmit bool) error {
	s.started = true
	r.d.count(func(st *Stats) { st.Maps++ })
	return r.d.be.rbStart(s, atSubmit)
}

// Read waits for the oldest pending result and copies it into dst, which
// must hold Size() bytes. If that result's slot is still taking results
// (a partial batch), its map starts now. It allocates nothing.
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
	direct := false
	if s.err == nil && !s.got {
		if !s.started {
			if err := r.start(s, false); err != nil {
				if l := r.d.Lost(); l != nil {
					return l
				}
				r.d.be.rbAbandon(s)
				s.err = fmt.Errorf("webgpu: readback %q: %w", r.label, err)
			}
		}
		// A slot of one result is read straight into dst.
		direct = s.fill == 1
		into := dst[:r.size]
		if !direct {
			into = s.host[:uint64(s.fill)*r.size]
		}
		if s.err == nil {
			if err := r.finish(ctx, s, into); err != nil {
				if l := r.d.Lost(); l != nil {
					return l
				}
				if ctx.Err() != nil {
					return err // the result may still come: Read again
				}
				// The map failed: this slot's results are lost. Unmap
				// (which also cancels a pending map) so the slot can be
				// filled again once its results are read (as errors).
				r.d.be.rbAbandon(s)
				s.err = fmt.Errorf("webgpu: readback %q: %w", r.label, err)
			} else {
				s.got = true
			}
		}
	}
	err := s.err
	if err == nil && !direct {
		copy(dst[:r.size], s.host[uint64(s.read)*r.size:])
	}
	r.consume(s)
	return err
}

// rbFinishFault, set by tests, fails a slot's map as the backend would.
var rbFinishFault func(s *rbSlot) error

// finish waits for slot s's map and copies its bytes into dst.
func (r *Readback) finish(ctx context.Context, s *rbSlot, dst []byte) error {
	if rbFinishFault != nil {
		if err := rbFinishFault(s); err != nil {
			return err
		}
	}
	return r.d.be.rbFinish(ctx, s, dst)
}

// consume counts one result of the head slot s as read, freeing s once
// all of its results are.
func (r *Readback) consume(s *rbSlot) {
	s.read++
	r.n--
	if s.read < s.fill {
		return
	}
	s.fill, s.read, s.started, s.got, s.err = 0, 0, false, false, nil
	s.buf.mapped = false
	r.used--
	r.head = (r.head + 1) % len(r.slots)
}
