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
	attn           uint8 // attention tape variant: attnAny, attnShort, attnLong
	out            uint8 // logits-row variant: outAny, outMany, outOne (lmhead.go)
}

// tapeKey selects a tape variant: how many logits chunks it reads back and
// which sampler it ends with.
type tapeKey struct {
	chunks  int
	sampler string
	rows    int  // token rows the grids are sized for (0: all B)
	short   bool // the short-range decode attention (attn_decode.go)
	// lmOne, lmNone: the step wants exactly one logits row, or none
	// (lmhead.go); both false: up to OutMax.
	lmOne, lmNone bool
}

// recorded is a tape variant and its number of kernel launches.
type recorded struct {
	t          *webgpu.Tape
	dispatches int
}

// program is a compiled graph. Run allocates nothing on the GPU.
type program struct {
	b      *Backend
	d      *webgpu.Device
	g      *compute.Graph
	nCtx   int
	nVocab int
	outMax int
	splits int // flash-decoding splits of the KV range (the grid's; see splitsFor)
	// splitsBase is the split count of steps attending to fewer than
	// splitsFrom positions (0: every step runs splits); attn_decode.go.
	splitsBase, splitsFrom int
	// shortMax is the longest attention range of the short-range tape
	// variant (0: none).
	shortMax int
	mem      int64
	bufs     []*webgpu.Buffer

	acts                  map[*compute.Tensor]*webgpu.Buffer
	partial, result, step *webgpu.Buffer
	topLists              *webgpu.Buffer // top_k's scan pass output (nil: one list)
	tokOff, outOff        uint64
	// posOff and zeroOff hold the positions Pos0+i and B zeros that
	// PosRows and TypeRows read as row ids.
	posOff, zeroOff  uint64
	slots            []slot
	nDyn             int
	dynEnd, slotSize uint64
	stepBytes        []byte

	ops        []recOp
	argOp      recOp
	topOps     []recOp   // top_k's scan pass, then its merge pass if split
	prep       *prepared // a top-k step encoded ahead (topk_pipeline.go)
	dispatches int       // of the last tape run
	tapes      map[tapeKey]recorded
	// fed says the last step submitted was an argmax step, whose tape
	// copied the picked id into the step buffer's token slot: the next
	// step may take its token from there (SubmitArgmax with feed).
	fed bool

	chunk        uint64
	rbs          []*webgpu.Readback
	rbBytes      []byte
	argRB, topRB *webgpu.Readback
	small        [2 * maxTopK * 4]byte
	scratch      []float32
}

// Dispatches is the number of kernel launches of the last step run
// (before any, of the default tape; samplers and readbacks excluded).
func (p *program) Dispatches() int { return p.dispatches }

// in reports whether op o belongs to tape variant k.
func (k tapeKey) in(o recOp) bool {
	return o.attn == attnAny || (o.attn == attnShort) == k.short
}

// opsFor returns the ops of tape variant k, their grids sized for its
// rows (the tape and ProfileLast's timed copy of it use the same list).
func (p *program) opsFor(k tapeKey) []recOp {
	var ops []recOp
	for _, o := range p.ops {
		if !k.in(o) || !k.inRows(o) {
			continue
		}
		if o.gridAt != nil && k.rows > 0 {
			o.grid = o.gridAt(k.rows)
		}
		ops = append(ops, o)
	}
	return ops
}

// tape returns (recording on first use) the tape variant k. Recording
// creates no GPU objects: every variant replays the same bind groups.
func (p *program) tape(k tapeKey) (*webgpu.Tape, error) {
	if r, ok := p.tapes[k]; ok {
		p.dispatches = r.dispatches
		return r.t, nil
	}
	t := p.d.NewTape()
	n := 0
	for _, o := range p.opsFor(k) {
		p.replay(t, o)
		if o.pipe != nil {
			n++
		}
	}
	for i := range k.chunks {
		t.ReadInto(p.rbs[i], p.acts[p.g.Logits], uint64(i)*p.chunk)
	}
	switch k.sampler {
	case "argmax":
		p.replay(t, p.argOp)
		t.ReadInto(p.argRB, p.result, 0)
		// GPU-side token feedback: the id also becomes the next step's
		// token (SubmitArgmax with feed); a host-written step overwrites it.
		t.CopyBuffer(p.result, 0, p.step, p.tokOff, 4)
	case "top_k":
		for _, o := range p.topOps {
			p.replay(t, o)
		}
		t.ReadInto(p.topRB, p.result, 0)
	}
	if err := t.Err(); err != nil {
		return nil, err
	}
	p.tapes[k] = recorded{t, n}
	p.dispatches = n
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
func (p *program) writeStep(s *compute.Step) error { return p.writeStepFrom(s, 0) }

// writeStepFrom writes the step buffer from byte off: 0 for everything,
// outOff to keep the token slot that the previous argmax step copied there
// (the write is queued after that step, so it cannot overtake the copy).
func (p *program) writeStepFrom(s *compute.Step, off uint64) error {
	b := p.stepBytes
	for i, id := range s.Tokens {
		binary.LittleEndian.PutUint32(b[p.tokOff+4*uint64(i):], uint32(id))
	}
	for i, r := range s.OutRows {
		binary.LittleEndian.PutUint32(b[p.outOff+4*uint64(i):], uint32(r))
	}
	for i := range s.Tokens {
		binary.LittleEndian.PutUint32(b[p.posOff+4*uint64(i):], uint32(s.Pos0+i))
	}
	for _, sl := range p.slots[:p.nDyn] {
		copy(b[sl.off:sl.off+p.slotSize], sl.fn(s).Bytes())
	}
	return p.d.WriteBuffer(p.step, off, b[off:p.dynEnd])
}

// submit writes step s (all of it, or with feed all but the token slot)
// and runs tape variant k (its attention variant chosen here).
func (p *program) submit(ctx context.Context, s *compute.Step, k tapeKey, feed bool) error {
	start := time.Now()
	var off uint64
	if feed {
		off = p.outOff
	}
	if err := p.writeStepFrom(s, off); err != nil {
		return err
	}
	k.short = p.short(s)
	t, err := p.tape(k)
	if err != nil {
		return err
	}
	p.fed = false
	if err := t.Run(ctx); err != nil {
		return err
	}
	p.fed = k.sampler == "argmax"
	p.b.noteStep(time.Since(start), p.dispatches)
	p.b.noteLast(p, s, k)
	return nil
}

// Run executes one step and reads back the logits of the OutRows.
func (p *program) Run(ctx context.Context, s compute.Step, logits []float32) error {
	if err := compute.CheckStep(p.g, s, p.nCtx, p.nVocab, logits); err != nil {
		return err
	}
	n := uint64(len(s.OutRows)) * uint64(p.nVocab) * 4
	k := tapeKey{chunks: int((n + p.chunk - 1) / p.chunk), rows: p.rowCap(len(s.Tokens)), lmOne: len(s.OutRows) == 1, lmNone: len(s.OutRows) == 0}
	if err := p.submit(ctx, &s, k, false); err != nil {
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
// computed on the GPU: only 8 bytes come back. Results of pipelined steps
// not read yet are discarded first.
func (p *program) RunArgmax(ctx context.Context, s compute.Step) (int32, error) {
	if err := p.SubmitArgmax(ctx, s, false); err != nil {
		return 0, err
	}
	return p.ReadArgmax(ctx)
}

// MaxTopK is the largest candidate count RunTopK takes.
func (p *program) MaxTopK() int { return min(maxTopK, p.nVocab) }

var _ compute.TopKProgram = (*program)(nil)

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
	p.releasePrepared()
	for _, b := range p.bufs {
		b.Destroy()
	}
	p.bufs = nil
}
