package gpu

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/webgguf/webgguf/compute"
)

// Pipelined greedy decoding. RunArgmax submits a step and waits for its
// token, so the host encodes step n+1 only after the GPU finished step n
// and the GPU idles while it does. SubmitArgmax with feed instead submits
// step n+1 before step n's token is known on the host: every argmax tape
// ends by copying the picked id into the step buffer's token slot, which
// the next step's get_rows reads, and the host writes the rest of the
// step buffer after it (queue order keeps the copy first). ReadArgmax then
// returns the tokens in submission order from the readback ring.

// maxArgmaxDepth is the most greedy steps a program can have in flight
// (ArgmaxDepth) and the argmax readback ring's slot count: a ring keeping
// D results in flight needs at most D slots whatever its batch (1 +
// ceil((D-1)/B), webgpu.NewBatchReadback). A step ahead costs a few bytes
// of ring, so the bound is generous: the deepest default is
// maxReadbackBatch+2.
const maxArgmaxDepth = 16

// ArgmaxDepth is how many greedy steps may be in flight at once: the step
// being read plus the ones submitted ahead of it, which hide the latency
// of reading a token back behind the GPU's next steps. With a readback
// batch of 1 (natively, and on software adapters) the default is two
// (one step ahead): natively a readback takes tens of µs, so one step
// ahead hides it. In Chromium on the lent H100 a readback took 2-3 ms,
// and six in flight doubled the browser's decode of a 100M model (774,
// 832 → 1571, 1630 tok/s) but slowed Llama-1B's (684, 478 → 375, 401;
// scripts/bench/RESULTS.md), for a reason not found yet, with one map per step.
// With a batch of B > 1 (ReadbackBatch: B steps' tokens share one map)
// the default is B+2: when the host waits for a batch's map, the GPU
// still has two steps queued behind the batch to run meanwhile; a depth
// below B+1 is raised to B+1, or the engine would wait for every batch
// before it is full (a flush per token, the one map per step batching
// avoids). On a software adapter (up to 0.5 s a step) every step
// submitted past a stop is seconds of waste. SetPipelineDepth overrides
// the default.
func (p *program) ArgmaxDepth() int {
	p.b.mu.Lock()
	d := p.b.depth
	p.b.mu.Unlock()
	bt := p.readbackBatch()
	switch {
	case d > 0 && bt > 1:
		d = max(d, bt+1)
	case d > 0:
	case bt > 1:
		d = bt + 2
	default:
		d = 2
	}
	return min(d, maxArgmaxDepth)
}

// SetPipelineDepth sets how many greedy steps a program may have in flight
// (ArgmaxDepth; 0 restores the default, at most maxArgmaxDepth = 16, at
// least the readback batch + 1): for benchmarks (in the browser, the bench
// page's depth parameter) and tests.
func (b *Backend) SetPipelineDepth(n int) {
	b.mu.Lock()
	b.depth = n
	b.mu.Unlock()
}

// Pipeliner is implemented by this backend's programs: greedy decode steps
// that can be submitted before the previous step's token is read back.
type Pipeliner interface {
	// SubmitArgmax submits a one-token step with one output row whose
	// greedy token ReadArgmax returns later. With feed, the step's input
	// token is the one the previous step of this program picked, taken
	// on the GPU (s.Tokens[0] is not used, but must be a valid id); that
	// step must have been an argmax step. Without feed, results not read
	// yet are discarded first (a new sequence starts).
	SubmitArgmax(ctx context.Context, s compute.Step, feed bool) error
	// ReadArgmax waits for the oldest submitted step not yet read and
	// returns its token. If ctx ends first it returns ctx's error and the
	// result stays pending.
	ReadArgmax(ctx context.Context) (int32, error)
	// PendingArgmax is the number of submitted steps not yet read.
	PendingArgmax() int
	// ArgmaxDepth is the most steps that may be pending at once.
	ArgmaxDepth() int
}

var _ Pipeliner = (*program)(nil)

// SubmitArgmax implements Pipeliner.
func (p *program) SubmitArgmax(ctx context.Context, s compute.Step, feed bool) error {
	if err := p.checkSample(s); err != nil {
		return err
	}
	if feed {
		if !p.fed {
			return fmt.Errorf("%w: token fed from the GPU, but the last step of this program was not an argmax step", compute.ErrBadStep)
		}
		if len(s.Tokens) != 1 {
			return fmt.Errorf("%w: a fed step has one token, got %d", compute.ErrBadStep, len(s.Tokens))
		}
		if p.argRB.Pending() >= p.ArgmaxDepth() {
			return fmt.Errorf("%w: %d argmax results pending, read one first", compute.ErrBadStep, p.argRB.Pending())
		}
	} else {
		if err := p.discardArgmax(ctx); err != nil {
			return err
		}
		// A new sequence: the ring is empty, so a changed batch applies
		// from here (webgpu.Readback.SetBatch needs nothing pending).
		if err := p.argRB.SetBatch(p.readbackBatch()); err != nil {
			return err
		}
	}
	return p.submit(ctx, &s, tapeKey{sampler: "argmax", rows: p.rowCap(len(s.Tokens))}, feed)
}

// ReadArgmax implements Pipeliner.
func (p *program) ReadArgmax(ctx context.Context) (int32, error) {
	if err := p.argRB.Read(ctx, p.small[:8]); err != nil {
		return 0, err
	}
	return int32(binary.LittleEndian.Uint32(p.small[:])), nil
}

// PendingArgmax implements Pipeliner.
func (p *program) PendingArgmax() int { return p.argRB.Pending() }

// discardArgmax reads away results nobody will read (a pipeline left by a
// stop or a cancellation), so the ring has room and stays in order.
func (p *program) discardArgmax(ctx context.Context) error {
	for p.argRB.Pending() > 0 {
		if _, err := p.ReadArgmax(ctx); err != nil {
			return err
		}
	}
	return nil
}
