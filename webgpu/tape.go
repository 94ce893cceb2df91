package webgpu

import (
	"context"
	"fmt"
	"time"
)

type opKind uint8

const (
	opDispatch opKind = iota
	opCopy
	opReadback
	opClear
)

// op is one recorded command.
type op struct {
	kind    opKind
	p       *Pipeline
	bg      *BindGroup
	x, y, z uint32
	src     *Buffer
	dst     *Buffer
	srcOff  uint64
	dstOff  uint64
	size    uint64
	rb      *Readback
}

// Tape is a recorded sequence of dispatches and copies, run as one command
// buffer and one submit per Run. Dispatches go into one compute pass (a copy
// ends the pass and the next dispatch begins another, since copies cannot
// happen inside a pass). Record once at load, Run every step: Run creates no
// buffers, bind groups or pipelines.
//
// Recording errors are sticky: the first one is kept and returned by Err and
// Run (like bufio.Writer), so a long recording needs one check.
type Tape struct {
	d      *Device
	ops    []op
	err    error
	gen    uint64 // bumped on every change; backends re-encode cached state
	timing *tapeTiming
	times  []time.Duration
	phases RunPhases
}

// NewTape returns an empty tape for d.
func (d *Device) NewTape() *Tape { return &Tape{d: d} }

// Err returns the first recording error.
func (t *Tape) Err() error { return t.err }

// Len returns the number of recorded commands.
func (t *Tape) Len() int { return len(t.ops) }

// Dispatches returns the number of recorded dispatches.
func (t *Tape) Dispatches() int {
	n := 0
	for _, o := range t.ops {
		if o.kind == opDispatch {
			n++
		}
	}
	return n
}

// Reset empties the tape (keeping its error cleared) for re-recording.
func (t *Tape) Reset() {
	t.ops, t.err = t.ops[:0], nil
	t.gen++
}

func (t *Tape) fail(err error) {
	if t.err == nil {
		t.err = err
	}
}

// Dispatch records p with bind group bg over an x×y×z grid of workgroups.
func (t *Tape) Dispatch(p *Pipeline, bg *BindGroup, x, y, z uint32) {
	n := len(t.ops)
	switch {
	case p == nil || p.d != t.d:
		t.fail(invalid("Dispatch", "", fmt.Sprintf("ops[%d].pipeline", n), "nil or from another device"))
		return
	case bg == nil || bg.p != p:
		t.fail(invalid("Dispatch", p.label, fmt.Sprintf("ops[%d].bindGroup", n), "nil or made for another pipeline"))
		return
	}
	m := t.d.info.Limits.MaxComputeWorkgroupsPerDimension
	if x == 0 || y == 0 || z == 0 || x > m || y > m || z > m {
		t.fail(invalid("Dispatch", p.label, fmt.Sprintf("ops[%d].grid", n), "%d×%d×%d: each dimension must be in [1, %d]", x, y, z, m))
		return
	}
	t.ops = append(t.ops, op{kind: opDispatch, p: p, bg: bg, x: x, y: y, z: z})
	t.gen++
}

// CopyBuffer records a copy of size bytes from src at srcOff to dst at dstOff
// (src needs CopySrc, dst CopyDst; offsets and size multiples of 4).
func (t *Tape) CopyBuffer(src *Buffer, srcOff uint64, dst *Buffer, dstOff uint64, size uint64) {
	if err := t.checkCopy(src, srcOff, dst, dstOff, size); err != nil {
		t.fail(err)
		return
	}
	t.ops = append(t.ops, op{kind: opCopy, src: src, srcOff: srcOff, dst: dst, dstOff: dstOff, size: size})
	t.gen++
}

func (t *Tape) checkCopy(src *Buffer, srcOff uint64, dst *Buffer, dstOff uint64, size uint64) error {
	if src == nil || src.d != t.d || dst == nil || dst.d != t.d {
		return invalid("CopyBuffer", "", fmt.Sprintf("ops[%d]", len(t.ops)), "nil buffer or from another device")
	}
	if src.usage&UsageCopySrc == 0 {
		return invalid("CopyBuffer", src.label, "src", "buffer lacks CopySrc")
	}
	if dst.usage&UsageCopyDst == 0 {
		return invalid("CopyBuffer", dst.label, "dst", "buffer lacks CopyDst")
	}
	if size == 0 {
		return invalid("CopyBuffer", src.label, "size", "zero")
	}
	if err := src.checkRange("CopyBuffer", srcOff, size); err != nil {
		return err
	}
	if err := dst.checkRange("CopyBuffer", dstOff, size); err != nil {
		return err
	}
	if src == dst && srcOff < dstOff+size && dstOff < srcOff+size {
		return invalid("CopyBuffer", src.label, "dstOff", "source and destination ranges overlap")
	}
	return nil
}

// ClearBuffer records zeroing size bytes of b at off (b needs CopyDst;
// offset and size multiples of 4), e.g. an accumulator before a split-K pass.
func (t *Tape) ClearBuffer(b *Buffer, off, size uint64) {
	if b == nil || b.d != t.d {
		t.fail(invalid("ClearBuffer", "", fmt.Sprintf("ops[%d].buffer", len(t.ops)), "nil or from another device"))
		return
	}
	if b.usage&UsageCopyDst == 0 {
		t.fail(invalid("ClearBuffer", b.label, "usage", "buffer lacks CopyDst"))
		return
	}
	if size == 0 {
		t.fail(invalid("ClearBuffer", b.label, "size", "zero"))
		return
	}
	if err := b.checkRange("ClearBuffer", off, size); err != nil {
		t.fail(err)
		return
	}
	t.ops = append(t.ops, op{kind: opClear, dst: b, dstOff: off, size: size})
	t.gen++
}

// ReadInto records a copy of rb.Size() bytes of src at srcOff into the next
// free place of rb (the next slot, or the next index of a batched ring's
// slot), mapped for reading once the submit completes and the slot's batch
// is full or read; Readback.Read returns the bytes. Each Run commits one
// result per ReadInto.
func (t *Tape) ReadInto(rb *Readback, src *Buffer, srcOff uint64) {
	if rb == nil || rb.d != t.d {
		t.fail(invalid("ReadInto", "", fmt.Sprintf("ops[%d].readback", len(t.ops)), "nil or from another device"))
		return
	}
	if src == nil || src.d != t.d || src.usage&UsageCopySrc == 0 {
		t.fail(invalid("ReadInto", rb.label, "src", "nil, from another device, or lacks CopySrc"))
		return
	}
	if err := src.checkRange("ReadInto", srcOff, rb.size); err != nil {
		t.fail(err)
		return
	}
	t.ops = append(t.ops, op{kind: opReadback, rb: rb, src: src, srcOff: srcOff, size: rb.size})
	t.gen++
}

// Run encodes the whole tape into one command buffer and submits it once.
// It does not wait for the GPU; Readback.Read (or Device.ReadBuffer) does.
// With timing enabled it waits, and Timings returns per-dispatch GPU times.
func (t *Tape) Run(ctx context.Context) error {
	claims, err := t.prepare(ctx, "Run")
	if err != nil {
		return err
	}
	if err := t.d.be.run(t, claims); err != nil {
		if l := t.d.Lost(); l != nil {
			return l
		}
		return err
	}
	return t.submitted(ctx, claims)
}

// prepare checks that the tape can run now and claims its readback slots
// (so a full ring fails before anything is encoded or submitted).
func (t *Tape) prepare(ctx context.Context, what string) ([]rbClaim, error) {
	if t.err != nil {
		return nil, t.err
	}
	if err := t.d.usable(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var claims []rbClaim
	for i, o := range t.ops {
		if o.kind == opReadback {
			c, err := o.rb.claim(claims)
			if err != nil {
				return nil, fmt.Errorf("webgpu: %s ops[%d] readback %q: %w", what, i, o.rb.label, err)
			}
			claims = append(claims, c)
		}
		if o.kind == opDispatch {
			for j, b := range o.bg.bufs {
				if b.destroyed {
					return nil, invalid(what, o.p.label, fmt.Sprintf("ops[%d].bindings[%d]", i, j), "buffer %q destroyed", b.label)
				}
			}
		}
		if (o.src != nil && o.src.destroyed) || (o.dst != nil && o.dst.destroyed) {
			return nil, invalid(what, "", fmt.Sprintf("ops[%d]", i), "copy buffer destroyed")
		}
	}
	return claims, nil
}

// submitted commits the readback results of a submit (the maps of the
// slots they fill start) and, with timing, waits for the per-dispatch
// times.
func (t *Tape) submitted(ctx context.Context, claims []rbClaim) error {
	t.d.count(func(s *Stats) { s.Submits++ })
	var err error
	for _, c := range claims {
		if c.s.rb.commit(c) {
			if e := c.s.rb.start(c.s, true); e != nil && err == nil {
				err = e // a later Read reports the slot's failed map
			}
		}
	}
	if err != nil {
		return err
	}
	if t.timing != nil {
		times, err := t.d.be.readTiming(ctx, t)
		if err != nil {
			return err
		}
		t.times = times
	}
	return nil
}

// Encoded is a tape encoded ahead of its submit (Tape.Encode), so that
// the host can encode step n+1 while the GPU runs step n and submit it the
// moment its inputs are known: the encode (hundreds of µs for a hundred
// dispatches natively) leaves the critical path. Buffer contents are read
// when the GPU runs it, so Device.WriteBuffer calls made between Encode and
// Submit are seen (queue order). An Encoded is submitted at most once;
// Release frees one that will not be.
type Encoded struct {
	t      *Tape
	gen    uint64
	claims []rbClaim
	h      encodedHandle
}

// Encode encodes the tape into a command buffer without submitting it. Its
// readbacks' slots are the ones their next results would take: between
// Encode and Submit those readbacks may be read but not filled by another
// Run or Submit (Submit reports such a stale encoding). Timing is not
// supported (use Run).
func (t *Tape) Encode(ctx context.Context) (*Encoded, error) {
	if t.timing != nil {
		return nil, invalid("Encode", "", "timing", "timed tapes run with Run")
	}
	claims, err := t.prepare(ctx, "Encode")
	if err != nil {
		return nil, err
	}
	h, err := t.d.be.encode(t, claims)
	if err != nil {
		if l := t.d.Lost(); l != nil {
			return nil, l
		}
		return nil, err
	}
	return &Encoded{t: t, gen: t.gen, claims: claims, h: h}, nil
}

// Submit submits the encoded tape. It fails (releasing e) if e was
// submitted or released already, the tape changed since Encode, or a
// readback slot e claimed was filled in the meantime.
func (e *Encoded) Submit(ctx context.Context) error {
	t := e.t
	if t == nil {
		return invalid("Submit", "", "encoded", "already submitted or released")
	}
	if t.gen != e.gen {
		e.Release()
		return invalid("Submit", "", "encoded", "the tape changed after Encode")
	}
	if err := t.d.usable(); err != nil {
		e.Release()
		return err
	}
	var now []rbClaim
	for i, c := range e.claims {
		s, err := c.s.rb.claim(now)
		if err != nil || s != c {
			e.Release()
			return invalid("Submit", c.s.rb.label, fmt.Sprintf("claims[%d]", i), "readback slot taken since Encode (another Run filled it, a Read flushed it, or its batch changed)")
		}
		now = append(now, s)
	}
	h := e.h
	e.t, e.h = nil, nil
	if err := t.d.be.submitEncoded(t, h, e.claims); err != nil {
		if l := t.d.Lost(); l != nil {
			return l
		}
		return err
	}
	return t.submitted(ctx, e.claims)
}

// Release frees an encoding that will not be submitted (no-op after Submit).
func (e *Encoded) Release() {
	if e.t != nil && e.h != nil {
		e.t.d.be.releaseEncoded(e.h)
	}
	e.t, e.h = nil, nil
}
