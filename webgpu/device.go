package webgpu

import (
	"context"
	"sync"
	"sync/atomic"
)

// Device is an opened WebGPU device with its queue. It is safe for use by
// several goroutines, but a Tape must be run by one goroutine at a time.
type Device struct {
	be   *backend // platform part: device_native.go, device_js.go
	info Info

	mu     sync.Mutex
	stats  Stats
	cache  map[string]*Pipeline
	closed bool
	lost   atomic.Pointer[DeviceLostError]
}

// Buffer is a GPU buffer.
type Buffer struct {
	d         *Device
	label     string
	size      uint64
	usage     Usage
	h         bufHandle
	destroyed bool
	mapped    bool // a Readback slot that is mapped or being mapped
}

// Label returns the label given at creation.
func (b *Buffer) Label() string { return b.label }

// Size returns the size in bytes.
func (b *Buffer) Size() uint64 { return b.size }

// Usage returns the usage flags given at creation.
func (b *Buffer) Usage() Usage { return b.usage }

// Pipeline is a compute pipeline with an explicit layout of one bind group.
type Pipeline struct {
	d      *Device
	label  string
	entry  string
	layout []BindingKind
	h      pipeHandle
}

// Label returns the label given at creation.
func (p *Pipeline) Label() string { return p.label }

// Layout returns the binding kinds of @group(0), indexed by @binding.
func (p *Pipeline) Layout() []BindingKind { return append([]BindingKind(nil), p.layout...) }

// BindGroup binds buffer ranges to a pipeline's layout.
type BindGroup struct {
	p    *Pipeline
	bufs []*Buffer
	h    bgHandle
}

// Open requests an adapter and a device with the adapter's own limits (not
// the WebGPU defaults) and every useful feature the adapter has.
func Open(ctx context.Context, opt Options) (*Device, error) {
	d := &Device{cache: map[string]*Pipeline{}}
	be, info, err := openBackend(ctx, opt, d.setLost)
	if err != nil {
		return nil, err
	}
	for _, f := range opt.RequireFeatures {
		if !info.Has(f) {
			be.close()
			return nil, invalid("Open", "", "RequireFeatures", "feature %q not available on adapter %q", f, info.Adapter)
		}
	}
	d.be, d.info = be, info
	return d, nil
}

func (d *Device) setLost(reason, msg string) {
	d.lost.CompareAndSwap(nil, &DeviceLostError{Reason: reason, Message: msg})
}

// Info describes the adapter, the granted features and limits.
func (d *Device) Info() Info {
	i := d.info
	i.Features = append([]Feature(nil), d.info.Features...)
	return i
}

// Limits returns the granted limits.
func (d *Device) Limits() Limits { return d.info.Limits }

// Has reports whether feature f was granted.
func (d *Device) Has(f Feature) bool { return d.info.Has(f) }

// Stats returns the creation counters.
func (d *Device) Stats() Stats {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.stats
}

// Lost returns the device-lost error, or nil while the device is usable.
func (d *Device) Lost() error {
	if l := d.lost.Load(); l != nil {
		return l
	}
	if lost, reason, msg := d.be.pollLost(); lost {
		d.setLost(reason, msg)
		return d.lost.Load()
	}
	return nil
}

// usable returns the error every call returns once the device is closed or lost.
func (d *Device) usable() error {
	if l := d.lost.Load(); l != nil {
		return l
	}
	if lost, reason, msg := d.be.pollLost(); lost {
		d.setLost(reason, msg)
		return d.lost.Load()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return ErrClosed
	}
	return nil
}

func (d *Device) count(f func(s *Stats)) {
	d.mu.Lock()
	f(&d.stats)
	d.stats.Created = d.stats.Buffers + d.stats.BindGroups + d.stats.Pipelines
	d.mu.Unlock()
}

// Close releases the device. Buffers and pipelines become unusable.
func (d *Device) Close() {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return
	}
	d.closed = true
	d.mu.Unlock()
	d.be.close()
}

// Destroy destroys the device the way a driver reset would: the device-lost
// callback fires and every later call returns ErrDeviceLost. It exists to
// exercise the recovery path (reopen, re-upload).
func (d *Device) Destroy() {
	d.be.destroy()
	// Natively the callback runs on the next poll; make the state visible now.
	d.setLost("destroyed", "Device.Destroy called")
}
