//go:build js

package webgpu

import (
	"context"
	"encoding/binary"
	"errors"
	"time"

	"github.com/hack-pad/safejs"
)

// rbState: the map promise itself lives in runtime.js (rt.maps), keyed by
// buffer id, so a slot keeps no state of its own here (rbAbandon clears
// this empty one only to say so).
type rbState struct{}

// tapeCache is the tape as uploaded to runtime.js, re-sent when it changes.
type tapeCache struct {
	id  int
	gen uint64
}

// encodeOps flattens the tape into the Uint32 layout runTape reads.
func encodeOps(t *Tape) []byte {
	w := make([]uint32, 0, 9*len(t.ops))
	lohi := func(v uint64) (uint32, uint32) { return uint32(v), uint32(v >> 32) }
	for _, o := range t.ops {
		switch o.kind {
		case opDispatch:
			w = append(w, 0, uint32(o.p.h.id), uint32(o.bg.h), o.x, o.y, o.z)
		case opClear:
			dl, dh := lohi(o.dstOff)
			zl, zh := lohi(o.size)
			w = append(w, 3, 0, 0, 0, uint32(o.dst.h), dl, dh, zl, zh)
		case opCopy, opReadback:
			sl, sh := lohi(o.srcOff)
			dl, dh := lohi(o.dstOff)
			zl, zh := lohi(o.size)
			kind, dst := uint32(1), uint32(0)
			if o.kind == opReadback {
				kind, dl, dh = 2, 0, 0
			} else {
				dst = uint32(o.dst.h)
			}
			w = append(w, kind, uint32(o.src.h), sl, sh, dst, dl, dh, zl, zh)
		}
	}
	out := make([]byte, 4*len(w))
	for i, v := range w {
		binary.LittleEndian.PutUint32(out[4*i:], v)
	}
	return out
}

func (b *backend) upload(t *Tape) (int, error) {
	b.mu.Lock()
	c, ok := b.tapes[t]
	if !ok {
		b.nextID++
		c.id = b.nextID
	}
	b.mu.Unlock()
	if ok && c.gen == t.gen {
		return c.id, nil
	}
	raw := encodeOps(t)
	u8, err := safejs.Global().Get("Uint8Array")
	if err != nil {
		return 0, err
	}
	arr, err := u8.New(len(raw))
	if err != nil {
		return 0, err
	}
	if _, err := safejs.CopyBytesToJS(arr, raw); err != nil {
		return 0, err
	}
	u32, err := safejs.Global().Get("Uint32Array")
	if err != nil {
		return 0, err
	}
	ops, err := u32.New(get(arr, "buffer"))
	if err != nil {
		return 0, err
	}
	if _, err := call(b.rt, "setTape", c.id, ops); err != nil {
		return 0, err
	}
	c.gen = t.gen
	b.mu.Lock()
	b.tapes[t] = c
	b.mu.Unlock()
	return c.id, nil
}

func (b *backend) run(t *Tape, claims []rbClaim) error {
	id, slots, timing, err := b.prepareRun(t, claims)
	if err != nil {
		return err
	}
	t0 := time.Now()
	if _, err := call(b.rt, "runTape", id, slots, timing); err != nil {
		return &ValidationError{Op: "Run", Msg: err.Error()}
	}
	// One JS call encodes, finishes and submits: its time is Encode.
	t.phases = RunPhases{Encode: time.Since(t0)}
	return nil
}

// prepareRun surfaces an earlier submit's error, settles the pipelines,
// uploads the tape and lists its readbacks' places and timing objects:
// slots holds [buffer id, byte offset, 1 if the result fills the slot]
// per readback, so that the submit's JS call starts exactly the maps of
// the slots whose batch it completes.
func (b *backend) prepareRun(t *Tape, claims []rbClaim) (id int, slots []any, timing any, err error) {
	if e, _ := b.rt.Call("takeRunError"); e.Type() == safejs.TypeString {
		s, _ := e.String()
		return 0, nil, nil, &ValidationError{Op: "Run", Msg: "previous submit: " + s}
	}
	// A tape may use pipelines still being created in the background.
	if err := b.settlePipelines(); err != nil {
		return 0, nil, nil, err
	}
	if id, err = b.upload(t); err != nil {
		return 0, nil, nil, err
	}
	slots = make([]any, 0, 3*len(claims))
	for _, c := range claims {
		full := 0
		if c.last {
			full = 1
		}
		slots = append(slots, c.s.buf.h, int(uint64(c.i)*c.s.rb.size), full)
	}
	if tt := t.timing; tt != nil {
		if tt.n != t.Dispatches() {
			return 0, nil, nil, invalid("Run", "", "timing", "tape has %d dispatches, timing sized for %d: call EnableTiming again", t.Dispatches(), tt.n)
		}
		timing = []any{tt.q, tt.resolve.h, tt.read.h}
	}
	return id, slots, timing, nil
}

// encodedHandle is a command buffer the runtime encoded ahead (encodeTape),
// held in its object registry until submitEncoded or dropEncoded.
type encodedHandle = *jsEncoded

type jsEncoded struct{ h int }

func (b *backend) encode(t *Tape, claims []rbClaim) (encodedHandle, error) {
	id, slots, timing, err := b.prepareRun(t, claims)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	v, err := call(b.rt, "encodeTape", id, slots, timing)
	if err != nil {
		return nil, &ValidationError{Op: "Encode", Msg: err.Error()}
	}
	// encodeTape records and finishes: its time is Encode (Submit is
	// submitEncoded's).
	t.phases = RunPhases{Encode: time.Since(t0)}
	h, err := v.Int()
	if err != nil {
		return nil, err
	}
	return &jsEncoded{h: h}, nil
}

func (b *backend) submitEncoded(t *Tape, e encodedHandle, _ []rbClaim) error {
	t0 := time.Now()
	if _, err := call(b.rt, "submitEncoded", e.h); err != nil {
		return &ValidationError{Op: "Submit", Msg: err.Error()}
	}
	t.phases.Submit = time.Since(t0)
	return nil
}

func (b *backend) releaseEncoded(e encodedHandle) { _, _ = call(b.rt, "dropEncoded", e.h) }

// rbStart: at a submit, runTape (submitEncoded) already started the map
// inside the same JS call; a flush (Read of a partial batch) starts it
// here.
func (b *backend) rbStart(s *rbSlot, atSubmit bool) error {
	if atSubmit {
		return nil
	}
	_, err := call(b.rt, "startMap", s.buf.h)
	return err
}

func (b *backend) waitMapped(ctx context.Context, id int) error {
	p, err := call(b.rt, "mapped", id)
	if err != nil {
		return err
	}
	if p.Type() != safejs.TypeObject {
		return errors.New("no pending map")
	}
	v, err := await(ctx, p)
	if err != nil {
		return err
	}
	if v.Type() == safejs.TypeString {
		s, _ := v.String()
		return errors.New("mapAsync: " + s)
	}
	return nil
}

func (b *backend) rbFinish(ctx context.Context, s *rbSlot, dst []byte) error {
	if err := b.waitMapped(ctx, s.buf.h); err != nil {
		return err
	}
	arr, err := call(b.rt, "readMapped", s.buf.h, len(dst))
	if err != nil {
		return err
	}
	_, err = safejs.CopyBytesToGo(dst, arr)
	return err
}

func (b *backend) rbAbandon(s *rbSlot) {
	s.st = rbState{}
	_, _ = b.rt.Call("abandon", s.buf.h)
}

func (b *backend) createQuerySet(n uint32) (queryHandle, error) {
	p, err := call(b.rt, "createQuerySet", int(n))
	v, err := b.created("EnableTiming", "", p, err)
	if err != nil {
		return 0, err
	}
	return int(getUint(v, "id")), nil
}

func (b *backend) releaseQuerySet(q queryHandle) { _, _ = b.rt.Call("release", q) }

func (b *backend) readTiming(ctx context.Context, t *Tape) ([]time.Duration, error) {
	rd := t.timing.read
	if err := b.waitMapped(ctx, rd.h); err != nil {
		return nil, err
	}
	arr, err := call(b.rt, "readMapped", rd.h, int(rd.size))
	if err != nil {
		return nil, err
	}
	raw := make([]byte, rd.size)
	if _, err := safejs.CopyBytesToGo(raw, arr); err != nil {
		return nil, err
	}
	out := make([]time.Duration, t.timing.n)
	for i := range out {
		t0 := binary.LittleEndian.Uint64(raw[16*i:])
		t1 := binary.LittleEndian.Uint64(raw[16*i+8:])
		if t1 >= t0 {
			out[i] = time.Duration(t1 - t0) // WebGPU timestamps are nanoseconds
		}
	}
	return out, nil
}
