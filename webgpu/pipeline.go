package webgpu

import (
	"fmt"
	"time"
)

// CreateComputePipeline compiles wgsl and creates a compute pipeline whose
// @group(0) has one binding per element of layout (@binding(i) is layout[i]).
// A WGSL error or a mismatch between shader and layout is a *CompileError
// carrying the compiler's message: natively from here, in the browser from
// WaitPipelines (it compiles in the background).
func (d *Device) CreateComputePipeline(label, wgsl, entryPoint string, layout []BindingKind) (*Pipeline, error) {
	if err := d.usable(); err != nil {
		return nil, err
	}
	if entryPoint == "" {
		return nil, invalid("CreateComputePipeline", label, "entryPoint", "empty")
	}
	if n := uint32(len(layout)); n > d.info.Limits.MaxBindingsPerBindGroup {
		return nil, invalid("CreateComputePipeline", label, "layout", "%d bindings exceed maxBindingsPerBindGroup %d", n, d.info.Limits.MaxBindingsPerBindGroup)
	}
	storage := uint32(0)
	for i, k := range layout {
		if k > Storage {
			return nil, invalid("CreateComputePipeline", label, fmt.Sprintf("layout[%d]", i), "unknown binding kind %d", k)
		}
		if k != Uniform {
			storage++
		}
	}
	if storage > d.info.Limits.MaxStorageBuffersPerShaderStage {
		return nil, invalid("CreateComputePipeline", label, "layout", "%d storage bindings exceed maxStorageBuffersPerShaderStage %d", storage, d.info.Limits.MaxStorageBuffersPerShaderStage)
	}
	t0 := time.Now()
	h, err := d.be.createPipeline(label, wgsl, entryPoint, layout)
	d.count(func(s *Stats) { s.CreateWait += time.Since(t0) })
	if err != nil {
		if l := d.Lost(); l != nil {
			return nil, l
		}
		return nil, err
	}
	d.count(func(s *Stats) { s.Pipelines++ })
	return &Pipeline{d: d, label: label, entry: entryPoint, layout: append([]BindingKind(nil), layout...), h: h}, nil
}

// WaitPipelines waits until every pipeline created so far is ready. In the
// browser CreateComputePipeline returns at once and the WGSL compiles and
// the pipeline is created in the background (createComputePipelineAsync),
// so that a model's kernels compile concurrently and no creation waits for
// a round trip to the GPU process; a WGSL error or a failure of that step
// is a *CompileError from WaitPipelines, or from the first Tape.Run if
// nothing waited. Bind groups and buffers of at most 1 MiB are checked
// there too in the browser (the Go side validates their arguments first;
// one the browser still refuses is a *ValidationError from here).
// Natively everything is checked when created and it returns nil.
func (d *Device) WaitPipelines() error {
	if err := d.usable(); err != nil {
		return err
	}
	t0 := time.Now()
	err := d.be.settlePipelines()
	d.count(func(s *Stats) { s.SettleWait += time.Since(t0) })
	if err != nil {
		if l := d.Lost(); l != nil {
			return l
		}
		return err
	}
	return nil
}

// CachedComputePipeline returns the pipeline cached under key, creating it
// with CreateComputePipeline on first use. The key is the caller's (the
// kernel library's specialization key); it must identify wgsl, entryPoint and
// layout. Cache hits do not count in Stats.
func (d *Device) CachedComputePipeline(key, label, wgsl, entryPoint string, layout []BindingKind) (*Pipeline, error) {
	d.mu.Lock()
	p, ok := d.cache[key]
	d.mu.Unlock()
	if ok {
		return p, nil
	}
	p, err := d.CreateComputePipeline(label, wgsl, entryPoint, layout)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if q, ok := d.cache[key]; ok { // another goroutine won the race
		return q, nil
	}
	d.cache[key] = p
	return p, nil
}

// CreateBindGroup binds buffer ranges to p's layout, validating each entry
// against the device limits before the backend sees it: offsets must be
// multiples of minStorageBufferOffsetAlignment (or the uniform one), sizes at
// most maxStorageBufferBindingSize, usages must match the binding kind.
func (d *Device) CreateBindGroup(p *Pipeline, bindings []Binding) (*BindGroup, error) {
	if err := d.usable(); err != nil {
		return nil, err
	}
	if p == nil || p.d != d {
		return nil, invalid("CreateBindGroup", "", "pipeline", "nil or from another device")
	}
	if len(bindings) != len(p.layout) {
		return nil, invalid("CreateBindGroup", p.label, "bindings", "%d entries, layout has %d", len(bindings), len(p.layout))
	}
	lim := d.info.Limits
	res := make([]Binding, len(bindings))
	bufs := make([]*Buffer, len(bindings))
	for i, b := range bindings {
		field := fmt.Sprintf("bindings[%d]", i)
		if b.Buffer == nil || b.Buffer.d != d {
			return nil, invalid("CreateBindGroup", p.label, field+".Buffer", "nil or from another device")
		}
		if b.Buffer.destroyed {
			return nil, invalid("CreateBindGroup", p.label, field+".Buffer", "buffer %q destroyed", b.Buffer.label)
		}
		align, maxSize, need := uint64(lim.MinStorageBufferOffsetAlignment), lim.MaxStorageBufferBindingSize, UsageStorage
		if p.layout[i] == Uniform {
			align, maxSize, need = uint64(lim.MinUniformBufferOffsetAlignment), lim.MaxUniformBufferBindingSize, UsageUniform
		}
		if b.Buffer.usage&need == 0 {
			return nil, invalid("CreateBindGroup", p.label, field+".Buffer", "buffer %q lacks usage %#x for a %s binding", b.Buffer.label, need, p.layout[i])
		}
		if align != 0 && b.Offset%align != 0 {
			return nil, invalid("CreateBindGroup", p.label, field+".Offset", "%d is not a multiple of the offset alignment %d", b.Offset, align)
		}
		if b.Offset >= b.Buffer.size {
			return nil, invalid("CreateBindGroup", p.label, field+".Offset", "%d outside buffer %q of %d bytes", b.Offset, b.Buffer.label, b.Buffer.size)
		}
		size := b.Size
		if size == 0 {
			size = b.Buffer.size - b.Offset
		}
		if size > b.Buffer.size-b.Offset {
			return nil, invalid("CreateBindGroup", p.label, field+".Size", "range [%d, %d) outside buffer %q of %d bytes", b.Offset, b.Offset+size, b.Buffer.label, b.Buffer.size)
		}
		if size > maxSize {
			return nil, invalid("CreateBindGroup", p.label, field+".Size", "%d exceeds the binding size limit %d", size, maxSize)
		}
		if size%4 != 0 {
			return nil, invalid("CreateBindGroup", p.label, field+".Size", "%d not a multiple of 4", size)
		}
		res[i] = Binding{Buffer: b.Buffer, Offset: b.Offset, Size: size}
		bufs[i] = b.Buffer
	}
	t0 := time.Now()
	h, err := d.be.createBindGroup(p, res)
	d.count(func(s *Stats) { s.CreateWait += time.Since(t0) })
	if err != nil {
		if l := d.Lost(); l != nil {
			return nil, l
		}
		return nil, err
	}
	d.count(func(s *Stats) { s.BindGroups++ })
	return &BindGroup{p: p, bufs: bufs, h: h}, nil
}
