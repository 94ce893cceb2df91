package gpu

import (
	"context"
	"errors"
	"fmt"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/webgpu"
)

// WeightLimits bound the buffers and bindings weight placement plans with,
// below the device's limits. The zero value plans with the device limits
// and buffers of at most DefaultMaxWeightBuffer.
type WeightLimits struct {
	// MaxBuffer caps each weight buffer (0: DefaultMaxWeightBuffer, never
	// above maxBufferSize).
	MaxBuffer uint64
	// MaxBinding caps each binding of a weight (0: the device's
	// maxStorageBufferBindingSize): a weight larger than this is split by
	// rows.
	MaxBinding uint64
	// Align is an offset alignment stricter than the device's
	// minStorageBufferOffsetAlignment (0: the device's), a power of two.
	Align uint64
}

// DefaultMaxWeightBuffer caps weight buffers when WeightLimits.MaxBuffer is
// 0: browsers may fail to allocate single buffers of several GiB even where
// maxBufferSize allows them, and a few 1 GiB buffers hold any model.
const DefaultMaxWeightBuffer = 1 << 30

// SetWeightLimits sets the limits weight placement plans with. It must be
// called before any weight is planned or loaded. Tests use it to split the
// weights of small models; applications may lower MaxBuffer where large
// allocations fail.
func (b *Backend) SetWeightLimits(l WeightLimits) error {
	if l.Align != 0 && l.Align&(l.Align-1) != 0 {
		return &Error{"weights", fmt.Sprintf("alignment %d is not a power of two", l.Align)}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.weights) > 0 || len(b.planned) > 0 {
		return &Error{"weights", "limits set after weights were planned or loaded"}
	}
	b.wlim = l
	return nil
}

// wpart is one bindable piece of a weight: rows [first, first+rows) at off
// in buf. bytes is rows times the row size, size the binding size (bytes
// padded to 16, reserved in buf).
type wpart struct {
	buf         *webgpu.Buffer
	off         uint64
	first, rows int
	bytes, size uint64
}

// placeOptions are the plan options of the backend's limits; align is the
// offset alignment the plan uses.
func (b *Backend) placeOptions() (opt webgpu.PlanOptions, align uint64) {
	l := b.wlim
	opt = webgpu.PlanOptions{MaxBuffer: l.MaxBuffer, MaxBinding: l.MaxBinding, Align: l.Align, SizeAlign: 16}
	if opt.MaxBuffer == 0 {
		opt.MaxBuffer = DefaultMaxWeightBuffer
	}
	return opt, max(uint64(b.d.Limits().MinStorageBufferOffsetAlignment), l.Align)
}

// spec is t's placement request: whole rows of blocks, split points on
// multiples of align/4 rows so that a split matvec's output slice (4 bytes
// a row) starts at an aligned offset.
func spec(t *compute.Tensor, size int64, align uint64) webgpu.TensorSpec {
	rows := uint64(t.Ne[1])
	return webgpu.TensorSpec{Name: t.Name, Rows: rows, RowBytes: uint64(size) / rows, RowStep: max(1, align/4)}
}

// planErr turns a plan error into the backend's typed error.
func planErr(err error) error {
	var pe *webgpu.PlanError
	if errors.As(err, &pe) {
		name := pe.Name
		if name == "" {
			name = "weights"
		}
		return &Error{name, pe.Msg}
	}
	return err
}

// PlanWeights places ts (the model's weights, in load order) into a few
// large buffers before they are loaded: each buffer within maxBufferSize
// (and WeightLimits.MaxBuffer), each tensor at an offset aligned to
// minStorageBufferOffsetAlignment, and a tensor larger than the binding
// limit split by rows into parts. The buffers are created now; LoadWeight
// and LoadWeightJS then stream each planned tensor into its place. A
// weight loaded without a plan gets buffers of its own, split the same
// way. The engine calls PlanWeights when the backend has it.
func (b *Backend) PlanWeights(ts []*compute.Tensor) error {
	var specs []webgpu.TensorSpec
	var keep []*compute.Tensor
	var sizes []int64
	b.mu.Lock()
	closed, planned := b.closed, len(b.planned) > 0
	opt, align := b.placeOptions()
	seen := map[*compute.Tensor]bool{}
	for _, t := range ts {
		if t == nil || t.Kind != compute.Weight {
			b.mu.Unlock()
			return &Error{fmt.Sprint(t), "not a weight"}
		}
		if seen[t] || b.weights[t] != nil {
			continue
		}
		seen[t] = true
		size, err := weightBytes(t)
		if err != nil {
			b.mu.Unlock()
			return err
		}
		specs = append(specs, spec(t, size, align))
		keep = append(keep, t)
		sizes = append(sizes, size)
	}
	b.mu.Unlock()
	switch {
	case closed:
		return &Error{"backend", "closed"}
	case planned:
		return &Error{"weights", "planned twice"}
	case len(specs) == 0:
		return nil
	}
	plan, err := webgpu.NewPlan(b.d.Limits(), specs, opt)
	if err != nil {
		return planErr(err)
	}
	bufs, err := b.d.CreatePlanBuffers("weights", plan, weightUsage)
	if err != nil {
		return err
	}
	ws := map[*compute.Tensor]*weight{}
	for i, t := range keep {
		ws[t] = newPlaced(t, uint64(sizes[i]), plan.Placements[i], bufs)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || len(b.planned) > 0 {
		for _, buf := range bufs {
			buf.Destroy()
		}
		return &Error{"weights", "backend closed or planned twice"}
	}
	b.arenas = append(b.arenas, bufs...)
	for _, buf := range bufs {
		b.mem += int64(buf.Size())
	}
	b.planned = ws
	return nil
}

const weightUsage = webgpu.UsageStorage | webgpu.UsageCopyDst | webgpu.UsageCopySrc

// newPlaced is weight t of size bytes at placement pl over bufs.
func newPlaced(t *compute.Tensor, size uint64, pl webgpu.Placement, bufs []*webgpu.Buffer) *weight {
	w := &weight{t: t, size: size}
	for _, p := range pl.Parts {
		w.parts = append(w.parts, wpart{buf: bufs[p.Buffer], off: p.Offset, first: int(p.FirstRow), rows: int(p.Rows), bytes: p.Bytes, size: p.Size})
	}
	if t.Ne[1] == 1 {
		w.host = make([]byte, size)
	}
	return w
}

// placeAlone makes buffers for weight t alone (no PlanWeights, or t was not
// in it), split like a planned weight.
func (b *Backend) placeAlone(t *compute.Tensor, size int64) (*weight, error) {
	b.mu.Lock()
	opt, align := b.placeOptions()
	b.mu.Unlock()
	plan, err := webgpu.NewPlan(b.d.Limits(), []webgpu.TensorSpec{spec(t, size, align)}, opt)
	if err != nil {
		return nil, planErr(err)
	}
	bufs, err := b.d.CreatePlanBuffers("w:"+t.Name, plan, weightUsage)
	if err != nil {
		return nil, err
	}
	w := newPlaced(t, uint64(size), plan.Placements[0], bufs)
	w.own = bufs
	return w, nil
}

// release destroys the buffers the weight owns (not shared plan buffers).
func (w *weight) release() {
	for _, buf := range w.own {
		buf.Destroy()
	}
	w.own = nil
}

// split reports whether the weight is bound in more than one part.
func (w *weight) split() bool { return len(w.parts) > 1 }

// span calls fn for each piece of the tensor's bytes [off, off+n) that lies
// in one part: its part, its offset within the tensor's range [off, off+n)
// and its length. Parts hold consecutive rows, so byte offsets map to parts
// by the part's starting byte (first row × row bytes).
func (w *weight) span(off, n uint64, fn func(p *wpart, at, n uint64) error) error {
	for i := range w.parts {
		p := &w.parts[i]
		lo := w.partStart(p)
		hi := lo + p.bytes
		if i == len(w.parts)-1 {
			hi = lo + p.size // the padded tail (finish's last word) goes here
		}
		a, e := max(off, lo), min(off+n, hi)
		if a >= e {
			continue
		}
		if err := fn(p, a-off, e-a); err != nil {
			return err
		}
	}
	return nil
}

// partStart is the tensor byte offset of part p's first row.
func (w *weight) partStart(p *wpart) uint64 { return uint64(p.first) * (w.size / uint64(w.t.Ne[1])) }

// write writes data at tensor byte offset off (4-byte aligned, as the
// uploader delivers it) into the parts it covers. Part boundaries are
// 4-byte aligned in the tensor too (the plan splits at aligned rows), so
// every piece stays on WebGPU's 4-byte write grid.
func (w *weight) write(d *webgpu.Device, off uint64, data []byte) error {
	return w.span(off, uint64(len(data)), func(p *wpart, at, n uint64) error {
		return d.WriteBuffer(p.buf, p.off+off+at-w.partStart(p), data[at:at+n])
	})
}

// read reads the weight's bytes back, part by part.
func (w *weight) read(ctx context.Context, d *webgpu.Device) ([]byte, error) {
	out := make([]byte, 0, w.size+4)
	for _, p := range w.parts {
		b, err := d.ReadBuffer(ctx, p.buf, p.off, (p.bytes+3)&^3)
		if err != nil {
			return nil, err
		}
		out = append(out, b[:p.bytes]...)
	}
	return out, nil
}

// WeightPlacement describes where the loaded weights live (diagnostics,
// tests).
type WeightPlacement struct {
	Buffers int            // GPU buffers holding weights
	Weights int            // weights loaded
	Split   map[string]int // parts of each weight split by rows (others have one)
}

// WeightPlacement reports the placement of the loaded weights.
func (b *Backend) WeightPlacement() WeightPlacement {
	b.mu.Lock()
	defer b.mu.Unlock()
	wp := WeightPlacement{Buffers: len(b.arenas), Weights: len(b.weights), Split: map[string]int{}}
	for _, w := range b.weights {
		wp.Buffers += len(w.own)
		if w.split() {
			wp.Split[w.t.Name] = len(w.parts)
		}
	}
	return wp
}
