package webgpu

import (
	"fmt"
	"math/bits"
)

// TensorSpec describes one tensor to place: Rows rows of RowBytes bytes each,
// row-major (a weight matrix's output rows; for quantized formats RowBytes is
// the bytes of one row of blocks). Splits only happen between rows.
type TensorSpec struct {
	Name     string
	Rows     uint64
	RowBytes uint64
	// RowStep, when not 0, makes every split point (each part's FirstRow) a
	// multiple of RowStep rows: a kernel binding its output slice of a split
	// matvec at FirstRow·4 bytes needs FirstRow·4 aligned like any offset.
	RowStep uint64
}

// Part is a bindable piece of a tensor: rows [FirstRow, FirstRow+Rows) at
// Offset in plan buffer Buffer. Bytes is Rows*RowBytes; Size rounds it up
// to PlanOptions.SizeAlign (4 by default: WebGPU binding sizes are
// multiples of 4), the binding size, all of which the plan reserves.
type Part struct {
	Buffer   int
	Offset   uint64
	FirstRow uint64
	Rows     uint64
	Bytes    uint64
	Size     uint64
}

// Placement is where one tensor lives: one Part, or several when the tensor
// is larger than maxStorageBufferBindingSize.
type Placement struct {
	Name  string
	Parts []Part
}

// Plan is a static memory plan: a few large buffers (each at most the device
// limit, or PlanOptions.MaxBuffer) and the placement of every tensor.
type Plan struct {
	Buffers    []uint64 // sizes in bytes, multiples of 4
	Placements []Placement
}

// PlanOptions bound the plan below the device limits.
type PlanOptions struct {
	// MaxBuffer caps each buffer (0: Limits.MaxBufferSize). Browsers may fail
	// to allocate near the limit; 1 GiB is a safe choice there.
	MaxBuffer uint64
	// MaxBinding caps each part (0: Limits.MaxStorageBufferBindingSize).
	MaxBinding uint64
	// Align raises the offset alignment above
	// Limits.MinStorageBufferOffsetAlignment (0 or less: the limit); a
	// power of two. Tests use it to plan as a stricter device would.
	Align uint64
	// SizeAlign is the granularity of part sizes (0: 4), a power of two of
	// at least 4: kernels reading 16-byte vectors want bindings padded to 16.
	SizeAlign uint64
}

// PlanError is a tensor that cannot be placed; Index is its position in the
// specs slice.
type PlanError struct {
	Index int
	Name  string
	Msg   string
}

func (e *PlanError) Error() string {
	return fmt.Sprintf("webgpu: plan: tensor %d %q: %s", e.Index, e.Name, e.Msg)
}

// NewPlan packs tensors, in order, into as few buffers as first-fit allows
// (never reordering, so a model's layers stay in file order for streaming).
// Every part's offset is a multiple of MinStorageBufferOffsetAlignment and
// its size at most the binding limit; a tensor over the binding limit is
// split by rows into parts whose row counts keep every part offset aligned.
func NewPlan(lim Limits, tensors []TensorSpec, opt PlanOptions) (*Plan, error) {
	maxBuf, maxBind := lim.MaxBufferSize, lim.MaxStorageBufferBindingSize
	if opt.MaxBuffer != 0 && opt.MaxBuffer < maxBuf {
		maxBuf = opt.MaxBuffer
	}
	if opt.MaxBinding != 0 && opt.MaxBinding < maxBind {
		maxBind = opt.MaxBinding
	}
	align := uint64(lim.MinStorageBufferOffsetAlignment)
	if align == 0 || align&(align-1) != 0 {
		return nil, &PlanError{Index: -1, Msg: fmt.Sprintf("minStorageBufferOffsetAlignment %d is not a power of two", align)}
	}
	if opt.Align > align {
		if opt.Align&(opt.Align-1) != 0 || opt.Align > 1<<30 {
			return nil, &PlanError{Index: -1, Msg: fmt.Sprintf("alignment %d is not a power of two up to 1 GiB", opt.Align)}
		}
		align = opt.Align
	}
	sizeAlign := uint64(4)
	if opt.SizeAlign != 0 {
		if opt.SizeAlign < 4 || opt.SizeAlign&(opt.SizeAlign-1) != 0 || opt.SizeAlign > align {
			return nil, &PlanError{Index: -1, Msg: fmt.Sprintf("size alignment %d is not a power of two in [4, %d]", opt.SizeAlign, align)}
		}
		sizeAlign = opt.SizeAlign
	}
	// A multiple of sizeAlign, so that a part fits iff its unpadded bytes do.
	maxBind = min(maxBind, maxBuf) &^ (sizeAlign - 1)
	if maxBind < align {
		return nil, &PlanError{Index: -1, Msg: fmt.Sprintf("binding limit %d below alignment %d", maxBind, align)}
	}
	p := &Plan{Placements: make([]Placement, 0, len(tensors))}
	cur := -1 // current buffer
	var fill uint64
	for i, t := range tensors {
		if t.Rows == 0 || t.RowBytes == 0 {
			return nil, &PlanError{Index: i, Name: t.Name, Msg: fmt.Sprintf("empty shape %d rows × %d bytes", t.Rows, t.RowBytes)}
		}
		hi, total := bits.Mul64(t.Rows, t.RowBytes)
		if hi != 0 || total > 1<<62 {
			return nil, &PlanError{Index: i, Name: t.Name, Msg: fmt.Sprintf("%d rows × %d bytes overflows", t.Rows, t.RowBytes)}
		}
		// Rows per part: as many as fit under the binding limit, in a
		// multiple of step so every split point is aligned (so a split
		// tensor's parts lie back to back within a buffer) and a multiple
		// of the caller's RowStep.
		step := align / gcd(t.RowBytes, align)
		if t.RowStep > 1 {
			if t.RowStep > 1<<32 {
				return nil, &PlanError{Index: i, Name: t.Name, Msg: fmt.Sprintf("row step %d too large", t.RowStep)}
			}
			step = step / gcd(step, t.RowStep) * t.RowStep
		}
		per := t.Rows
		if roundUp(total, sizeAlign) > maxBind {
			per = maxBind / t.RowBytes / step * step
			if per == 0 {
				return nil, &PlanError{Index: i, Name: t.Name, Msg: fmt.Sprintf("%d rows × %d bytes cannot be split under the binding limit %d with offset alignment %d (needs %d-row steps)", t.Rows, t.RowBytes, maxBind, align, step)}
			}
		}
		// Bound the work before doing it: tensor sizes come from untrusted files.
		if parts := (t.Rows + per - 1) / per; parts > maxPlanParts {
			return nil, &PlanError{Index: i, Name: t.Name, Msg: fmt.Sprintf("%d rows × %d bytes needs %d parts under the binding limit %d (max %d)", t.Rows, t.RowBytes, parts, maxBind, maxPlanParts)}
		}
		pl := Placement{Name: t.Name}
		for first := uint64(0); first < t.Rows; first += per {
			rows := min(per, t.Rows-first)
			part := Part{FirstRow: first, Rows: rows, Bytes: rows * t.RowBytes}
			part.Size = roundUp(part.Bytes, sizeAlign)
			off := (fill + align - 1) &^ (align - 1)
			if cur < 0 || off > maxBuf || part.Size > maxBuf-off {
				p.Buffers = append(p.Buffers, 0)
				cur, off = len(p.Buffers)-1, 0
			}
			part.Buffer, part.Offset = cur, off
			fill = off + part.Size
			p.Buffers[cur] = fill
			pl.Parts = append(pl.Parts, part)
		}
		p.Placements = append(p.Placements, pl)
	}
	return p, nil
}

// maxPlanParts bounds the parts of one tensor (a 1 TiB tensor under a
// 128 MiB binding limit needs 8192).
const maxPlanParts = 1 << 16

// roundUp rounds n up to a multiple of a, a power of two.
func roundUp(n, a uint64) uint64 { return (n + a - 1) &^ (a - 1) }

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// CreatePlanBuffers creates the plan's buffers (labelled label[i]) with the
// given usage. On error the buffers already created are destroyed.
func (d *Device) CreatePlanBuffers(label string, p *Plan, usage Usage) ([]*Buffer, error) {
	out := make([]*Buffer, 0, len(p.Buffers))
	for i, size := range p.Buffers {
		b, err := d.CreateBuffer(fmt.Sprintf("%s[%d]", label, i), size, usage)
		if err != nil {
			for _, o := range out {
				o.Destroy()
			}
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// Binding returns the binding of part k of placement pl over the buffers
// made by CreatePlanBuffers.
func (pl *Placement) Binding(bufs []*Buffer, k int) Binding {
	pt := pl.Parts[k]
	return Binding{Buffer: bufs[pt.Buffer], Offset: pt.Offset, Size: pt.Size}
}
