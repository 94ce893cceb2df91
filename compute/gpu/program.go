package gpu

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/shaders"
	"github.com/webgguf/webgguf/webgpu"
)

// slot is one dispatch's uniform parameters in the step buffer.
type slot struct {
	off uint64
	fn  func(s *compute.Step) shaders.Params
}

// recOp is a recorded tape command: a dispatch, or a copy when pipe is nil.
type recOp struct {
	pipe           *webgpu.Pipeline
	bg             *webgpu.BindGroup
	grid           [3]uint32
	gridAt         func(rows int) [3]uint32 // grid for a step of at most rows tokens
	src, dst       *webgpu.Buffer
	srcOff, dstOff uint64
	size           uint64
}

// tapeKey selects a tape variant: how many logits chunks it reads back and
// which sampler it ends with.
type tapeKey struct {
	chunks  int
	sampler string
	rows    int // token rows the grids are sized for (0: all B)
}

// program is a compiled graph. Run allocates nothing on the GPU.
type program struct {
	b      *Backend
	d      *webgpu.Device
	g      *compute.Graph
	nCtx   int
	nVocab int
	outMax int
	splits int // flash-decoding splits of the KV range
	mem    int64
	bufs   []*webgpu.Buffer

	acts                  map[*compute.Tensor]*webgpu.Buffer
	partial, result, step *webgpu.Buffer
	tokOff, outOff        uint64
	slots                 []slot
	nDyn                  int
	dynEnd, slotSize      uint64
	stepBytes             []byte

	ops          []recOp
	argOp, topOp recOp
	dispatches   int
	tapes        map[tapeKey]*webgpu.Tape

	chunk        uint64
	rbs          []*webgpu.Readback
	rbBytes      []byte
	argRB, topRB *webgpu.Readback
	small        [2 * maxTopK * 4]byte
	scratch      []float32
}

// Dispatches is the number of kernel launches of one step (samplers and
// readbacks excluded).
func (p *program) Dispatches() int { return p.dispatches }

// tape returns (recording on first use) the tape variant k. Recording
// creates no GPU objects: every variant replays the same bind groups.
func (p *program) tape(k tapeKey) (*webgpu.Tape, error) {
	if t, ok := p.tapes[k]; ok {
		return t, nil
	}
	t := p.d.NewTape()
	for _, o := range p.ops {
		if o.gridAt != nil && k.rows > 0 {
			o.grid = o.gridAt(k.rows)
		}
		p.replay(t, o)
	}
	for i := range k.chunks {
		t.ReadInto(p.rbs[i], p.acts[p.g.Logits], uint64(i)*p.chunk)
	}
	switch k.sampler {
	case "argmax":
		p.replay(t, p.argOp)
		t.ReadInto(p.argRB, p.result, 0)
	case "top_k":
		p.replay(t, p.topOp)
		t.ReadInto(p.topRB, p.result, 0)
	}
	if err := t.Err(); err != nil {
		return nil, err
	}
	p.tapes[k] = t
	return t, nil
}

func (p *program) replay(t *webgpu.Tape, o recOp) {
	if o.pipe == nil {
		t.CopyBuffer(o.src, o.srcOff, o.dst, o.dstOff, o.size)
		return
	}
	t.Dispatch(o.pipe, o.bg, o.grid[0], o.grid[1], o.grid[2])
}

// rowCap rounds a step's token count up to a power of two (at most B), so
// that a few tape variants serve every step size.
func (p *program) rowCap(n int) int {
	c := 1
	for c < n {
		c <<= 1
	}
	if c >= p.g.B {
		return 0 // the full grid
	}
	return c
}

// writeStep writes the ids and the step-dependent parameters in one write.
func (p *program) writeStep(s *compute.Step) error {
	b := p.stepBytes
	for i, id := range s.Tokens {
		binary.LittleEndian.PutUint32(b[p.tokOff+4*uint64(i):], uint32(id))
	}
	for i, r := range s.OutRows {
		binary.LittleEndian.PutUint32(b[p.outOff+4*uint64(i):], uint32(r))
	}
	for _, sl := range p.slots[:p.nDyn] {
		copy(b[sl.off:sl.off+p.slotSize], sl.fn(s).Bytes())
	}
	return p.d.WriteBuffer(p.step, 0, b[:p.dynEnd])
}

// submit validates s, writes the step and runs tape variant k.
func (p *program) submit(ctx context.Context, s *compute.Step, k tapeKey) error {
	start := time.Now()
	if err := p.writeStep(s); err != nil {
		return err
	}
	t, err := p.tape(k)
	if err != nil {
		return err
	}
	if err := t.Run(ctx); err != nil {
		return err
	}
	p.b.noteStep(time.Since(start), p.dispatches)
	p.b.noteLast(p, s)
	return nil
}

// Run executes one step and reads back the logits of the OutRows.
func (p *program) Run(ctx context.Context, s compute.Step, logits []float32) error {
	if err := compute.CheckStep(p.g, s, p.nCtx, p.nVocab, logits); err != nil {
		return err
	}
	n := uint64(len(s.OutRows)) * uint64(p.nVocab) * 4
	k := tapeKey{chunks: int((n + p.chunk - 1) / p.chunk), rows: p.rowCap(len(s.Tokens))}
	if err := p.submit(ctx, &s, k); err != nil {
		return err
	}
	for i := range k.chunks {
		if err := p.rbs[i].Read(ctx, p.rbBytes[uint64(i)*p.chunk:uint64(i+1)*p.chunk]); err != nil {
			return err
		}
	}
	for i := range int(n / 4) {
		logits[i] = math.Float32frombits(binary.LittleEndian.Uint32(p.rbBytes[4*i:]))
	}
	return nil
}

// RunArgmax executes one step with one output row and returns the id of
// the largest logit (the lowest id among equal ones, NaN never wins),
// computed on the GPU: only 8 bytes come back.
func (p *program) RunArgmax(ctx context.Context, s compute.Step) (int32, error) {
	if err := p.checkSample(s); err != nil {
		return 0, err
	}
	if err := p.submit(ctx, &s, tapeKey{sampler: "argmax", rows: p.rowCap(len(s.Tokens))}); err != nil {
		return 0, err
	}
	if err := p.argRB.Read(ctx, p.small[:8]); err != nil {
		return 0, err
	}
	return int32(binary.LittleEndian.Uint32(p.small[:])), nil
}

// RunTopK executes one step with one output row and writes the ids and
// logits of the len(ids) (at most MaxTopK) largest logits, best first,
// computed on the GPU.
func (p *program) RunTopK(ctx context.Context, s compute.Step, ids []int32, logits []float32) error {
	if err := p.checkSample(s); err != nil {
		return err
	}
	k := len(ids)
	if k < 1 || k > min(maxTopK, p.nVocab) || len(logits) < k {
		return fmt.Errorf("%w: top-k of %d (logits %d) outside [1, %d]", compute.ErrBadStep, k, len(logits), min(maxTopK, p.nVocab))
	}
	if err := p.submit(ctx, &s, tapeKey{sampler: "top_k", rows: p.rowCap(len(s.Tokens))}); err != nil {
		return err
	}
	if err := p.topRB.Read(ctx, p.small[:]); err != nil {
		return err
	}
	for i := range k {
		ids[i] = int32(binary.LittleEndian.Uint32(p.small[4*i:]))
		logits[i] = math.Float32frombits(binary.LittleEndian.Uint32(p.small[4*(maxTopK+i):]))
	}
	return nil
}

func (p *program) checkSample(s compute.Step) error {
	if len(s.OutRows) != 1 {
		return fmt.Errorf("%w: GPU sampling needs exactly one output row, got %d", compute.ErrBadStep, len(s.OutRows))
	}
	return compute.CheckStep(p.g, s, p.nCtx, p.nVocab, p.rowScratch())
}

// rowScratch is a logits-sized slice for CheckStep's length check; sampling
// never writes it.
func (p *program) rowScratch() []float32 {
	if p.scratch == nil {
		p.scratch = make([]float32, p.nVocab)
	}
	return p.scratch
}

// destroy frees the program's buffers.
func (p *program) destroy() {
	for _, b := range p.bufs {
		b.Destroy()
	}
	p.bufs = nil
}
