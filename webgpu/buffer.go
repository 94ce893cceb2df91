package webgpu

import (
	"context"
	"fmt"
	"time"
)

// CreateBuffer creates a buffer of size bytes. The size is rounded up to a
// multiple of 4 (WebGPU requires it for mapping and copies); Size reports
// the rounded size.
func (d *Device) CreateBuffer(label string, size uint64, usage Usage) (*Buffer, error) {
	if err := d.usable(); err != nil {
		return nil, err
	}
	if size == 0 {
		return nil, invalid("CreateBuffer", label, "size", "zero")
	}
	if size > d.info.Limits.MaxBufferSize {
		return nil, invalid("CreateBuffer", label, "size", "%d exceeds maxBufferSize %d", size, d.info.Limits.MaxBufferSize)
	}
	size = (size + 3) &^ 3
	t0 := time.Now()
	h, err := d.be.createBuffer(label, size, usage)
	d.count(func(s *Stats) { s.CreateWait += time.Since(t0) })
	if err != nil {
		return nil, err
	}
	d.count(func(s *Stats) { s.Buffers++ })
	return &Buffer{d: d, label: label, size: size, usage: usage, h: h}, nil
}

// Destroy frees the buffer's memory now rather than at garbage collection.
func (b *Buffer) Destroy() {
	if b.destroyed {
		return
	}
	b.destroyed = true
	b.d.be.destroyBuffer(b.h)
}

// checkRange validates [off, off+n) inside b and WebGPU's 4-byte granularity.
func (b *Buffer) checkRange(op string, off, n uint64) error {
	if b == nil {
		return invalid(op, "", "buffer", "nil")
	}
	if b.destroyed {
		return invalid(op, b.label, "buffer", "destroyed")
	}
	if b.mapped {
		return invalid(op, b.label, "buffer", "mapped by a pending readback")
	}
	if off%4 != 0 {
		return invalid(op, b.label, "offset", "%d not a multiple of 4", off)
	}
	if n%4 != 0 {
		return invalid(op, b.label, "size", "%d not a multiple of 4", n)
	}
	if off > b.size || n > b.size-off {
		return invalid(op, b.label, "offset", "range [%d, %d) outside buffer of %d bytes", off, off+n, b.size)
	}
	return nil
}

// WriteBuffer queues a write of data at byte offset off of b. The bytes are
// copied before WriteBuffer returns; len(data) and off must be multiples of 4.
func (d *Device) WriteBuffer(b *Buffer, off uint64, data []byte) error {
	if err := d.usable(); err != nil {
		return err
	}
	if err := b.checkRange("WriteBuffer", off, uint64(len(data))); err != nil {
		return err
	}
	if b.usage&UsageCopyDst == 0 {
		return invalid("WriteBuffer", b.label, "usage", "buffer lacks CopyDst")
	}
	if len(data) == 0 {
		return nil
	}
	return d.be.writeBuffer(b.h, off, data)
}

// ReadBuffer copies size bytes at off of b (which needs CopySrc) to the CPU,
// waiting for all submitted work. It creates a staging buffer each call: it is
// meant for tests and evaluation, not for the token loop (use Readback).
func (d *Device) ReadBuffer(ctx context.Context, b *Buffer, off, size uint64) ([]byte, error) {
	if err := d.usable(); err != nil {
		return nil, err
	}
	if err := b.checkRange("ReadBuffer", off, size); err != nil {
		return nil, err
	}
	if b.usage&UsageCopySrc == 0 {
		return nil, invalid("ReadBuffer", b.label, "usage", "buffer lacks CopySrc")
	}
	if size == 0 {
		return []byte{}, nil
	}
	d.count(func(s *Stats) { s.Buffers++; s.Submits++ })
	out, err := d.be.readBuffer(ctx, b.h, off, size)
	if err != nil {
		if l := d.Lost(); l != nil {
			return nil, l
		}
		return nil, fmt.Errorf("webgpu: ReadBuffer %q: %w", b.label, err)
	}
	return out, nil
}
