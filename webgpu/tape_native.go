//go:build !js

package webgpu

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/cogentcore/webgpu/wgpu"
)

type (
	queryHandle = *wgpu.QuerySet
)

// rbState is one Readback slot's pending map.
type rbState struct {
	m nativeMap
}

// encodedHandle is a finished command buffer waiting for its submit.
type encodedHandle = *wgpu.CommandBuffer

func (b *backend) run(t *Tape, claims []rbClaim) error {
	cb, err := b.encode(t, claims)
	if err != nil {
		return err
	}
	return b.submitEncoded(t, cb, claims)
}

// encode records the tape into one command buffer (Encode and Finish
// phases of RunPhases).
func (b *backend) encode(t *Tape, claims []rbClaim) (encodedHandle, error) {
	if msg := b.takeUncaptured(); msg != "" {
		return nil, &ValidationError{Op: "Run", Msg: "earlier uncaptured error: " + msg}
	}
	var cb *wgpu.CommandBuffer
	timed := t.timing != nil
	if timed && t.timing.n != t.Dispatches() {
		return nil, invalid("Run", "", "timing", "tape has %d dispatches, timing sized for %d: call EnableTiming again", t.Dispatches(), t.timing.n)
	}
	t0 := time.Now()
	err := b.scoped("Run", "", func() error {
		enc, err := b.dev.CreateCommandEncoder(nil)
		if err != nil {
			return err
		}
		defer enc.Release()
		var pass *wgpu.ComputePassEncoder
		var cur *Pipeline
		end := func() error {
			if pass == nil {
				return nil
			}
			err := pass.End()
			pass.Release()
			pass, cur = nil, nil
			return err
		}
		nd, nc := 0, 0
		for i, o := range t.ops {
			switch o.kind {
			case opDispatch:
				if timed {
					pass = beginTimedPass(b.dev, enc, t.timing.q, uint32(2*nd), uint32(2*nd+1))
				} else if pass == nil {
					pass = enc.BeginComputePass(nil)
				}
				if o.p != cur {
					pass.SetPipeline(o.p.h.p)
					cur = o.p
				}
				pass.SetBindGroup(0, o.bg.h, nil)
				pass.DispatchWorkgroups(o.x, o.y, o.z)
				nd++
				if timed {
					if err := end(); err != nil {
						return fmt.Errorf("ops[%d]: %w", i, err)
					}
				}
			case opCopy:
				if err := end(); err != nil {
					return err
				}
				if err := enc.CopyBufferToBuffer(o.src.h, o.srcOff, o.dst.h, o.dstOff, o.size); err != nil {
					return fmt.Errorf("ops[%d]: %w", i, err)
				}
			case opClear:
				if err := end(); err != nil {
					return err
				}
				if err := enc.ClearBuffer(o.dst.h, o.dstOff, o.size); err != nil {
					return fmt.Errorf("ops[%d]: %w", i, err)
				}
			case opReadback:
				if err := end(); err != nil {
					return err
				}
				c := claims[nc]
				if err := enc.CopyBufferToBuffer(o.src.h, o.srcOff, c.s.buf.h, uint64(c.i)*o.size, o.size); err != nil {
					return fmt.Errorf("ops[%d]: %w", i, err)
				}
				nc++
			}
		}
		if err := end(); err != nil {
			return err
		}
		if timed {
			if err := enc.ResolveQuerySet(t.timing.q, 0, uint32(2*nd), t.timing.resolve.h, 0); err != nil {
				return err
			}
			if err := enc.CopyBufferToBuffer(t.timing.resolve.h, 0, t.timing.read.h, 0, t.timing.read.size); err != nil {
				return err
			}
		}
		t1 := time.Now()
		if cb, err = enc.Finish(nil); err != nil {
			return err
		}
		t.phases = RunPhases{Encode: t1.Sub(t0), Finish: time.Since(t1)}
		return nil
	})
	if err != nil && cb != nil { // the error scope caught something after Finish
		cb.Release()
		cb = nil
	}
	return cb, err
}

// submitEncoded submits and releases a command buffer from encode.
func (b *backend) submitEncoded(t *Tape, cb encodedHandle, _ []rbClaim) error {
	defer cb.Release()
	return b.scoped("Run", "", func() error {
		t2 := time.Now()
		b.mu.Lock()
		b.q.Submit(cb)
		b.mu.Unlock()
		t.phases.Submit = time.Since(t2)
		return nil
	})
}

func (b *backend) releaseEncoded(cb encodedHandle) { cb.Release() }

// rbStart maps the slot's whole buffer; every copy into it was submitted
// already (at its last result's submit, or later at a flush).
func (b *backend) rbStart(s *rbSlot, _ bool) error {
	return b.startMap(s.buf.h, s.buf.size, &s.st.m)
}

// rbFinish waits for the slot's map, copies len(dst) bytes from its start
// and unmaps it.
func (b *backend) rbFinish(ctx context.Context, s *rbSlot, dst []byte) error {
	if err := b.waitMap(ctx, &s.st.m); err != nil {
		return err
	}
	copy(dst, s.buf.h.GetMappedRange(0, uint(len(dst))))
	return b.scoped("Read", s.rb.label, s.buf.h.Unmap)
}

func (b *backend) rbAbandon(s *rbSlot) {
	_ = b.scoped("Read", s.rb.label, s.buf.h.Unmap)
}

func (b *backend) createQuerySet(n uint32) (queryHandle, error) {
	var qs *wgpu.QuerySet
	err := b.scoped("EnableTiming", "", func() (err error) {
		qs, err = b.dev.CreateQuerySet(&wgpu.QuerySetDescriptor{Type: wgpu.QueryTypeTimestamp, Count: n})
		return err
	})
	return qs, err
}

func (b *backend) releaseQuerySet(q queryHandle) { q.Release() }

func (b *backend) readTiming(ctx context.Context, t *Tape) ([]time.Duration, error) {
	rd := t.timing.read
	var m nativeMap
	if err := b.startMap(rd.h, rd.size, &m); err != nil {
		return nil, err
	}
	if err := b.waitMap(ctx, &m); err != nil {
		return nil, err
	}
	raw := rd.h.GetMappedRange(0, uint(rd.size))
	out := make([]time.Duration, t.timing.n)
	for i := range out {
		t0 := binary.LittleEndian.Uint64(raw[16*i:])
		t1 := binary.LittleEndian.Uint64(raw[16*i+8:])
		if t1 >= t0 {
			out[i] = time.Duration(t1 - t0)
		}
	}
	return out, b.scoped("Timings", "", rd.h.Unmap)
}
