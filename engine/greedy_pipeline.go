package engine

import (
	"context"
	"fmt"

	"github.com/webgguf/webgguf/compute"
)

// pipeliner is a decode program that can submit a greedy step before the
// previous step's token is back on the host, the step taking that token
// on the device (gpu.Pipeliner; named here so the engine does not import
// a backend).
type pipeliner interface {
	// SubmitArgmax submits a one-token step; with feed its token is the
	// one the previous step picked, on the device.
	SubmitArgmax(ctx context.Context, s compute.Step, feed bool) error
	// ReadArgmax returns the oldest unread step's token.
	ReadArgmax(ctx context.Context) (int32, error)
	// ArgmaxDepth is the most steps that may be in flight (submitted and
	// not read) at once, at least 2.
	ArgmaxDepth() int
}

// generatePipelined is greedy Generate with steps in flight ahead of the
// host: from the second token on, up to pl.ArgmaxDepth() steps (each fed
// its predecessor's token on the GPU) are submitted before the oldest
// one's token is read, so the host's encode and the readback's latency
// hide behind the GPU's work. One step ahead hides a native readback; in
// the browser a readback can take longer than a step, where more steps
// ahead may pay (the GPU backend keeps two by default; see its
// ArgmaxDepth), and where the backend batches readbacks: the tokens of
// several consecutive steps come back through one map, started when the
// batch is full or when ReadArgmax needs a token of a batch that is not
// (gpu.Backend.SetReadbackBatch). This loop needs nothing for that: the
// backend's depth leaves room for a full batch plus a step, and every way
// out (n reached, the cache's end, a stop, a cancel, an error) reads what
// it needs or leaves the rest pending, to be discarded by the next
// sequence's first step.
//
// Whether to continue (fn's answer, an end-of-generation token) is known
// only once step i's token is read, after later steps were submitted. A
// step submitted in vain writes its K and V rows at a position after the
// context and nothing else; that position is not counted (e.pos counts
// the steps whose token was read) and the next evaluation there
// overwrites the rows before anything reads them. The number of steps (n)
// and the cache's end are known in advance, so no step is submitted past
// them. A cancelled ctx stops the loop before the next token is read, even
// when that token is already on the host (a batch's tokens arrive
// together) and no further step would be submitted.
func (e *Engine) generatePipelined(ctx context.Context, pl pipeliner, prompt []int32, n int, fn func(tok int32) bool) error {
	if len(prompt) > 1 {
		if _, err := e.Eval(ctx, prompt[:len(prompt)-1], LogitsNone); err != nil {
			return err
		}
	}
	last := prompt[len(prompt)-1]
	if e.pos+1 > e.nCtx {
		return &ContextFullError{NCtx: e.nCtx, Pos: e.pos, Need: 1}
	}
	if last < 0 || int(last) >= e.cfg.NVocab {
		return fmt.Errorf("%w: token %d outside vocabulary %d", compute.ErrBadStep, last, e.cfg.NVocab)
	}
	depth := max(2, pl.ArgmaxDepth())
	row := []int32{0}
	p0 := e.pos // step j runs at position p0+j
	if err := pl.SubmitArgmax(ctx, compute.Step{Pos0: p0, Tokens: []int32{last}, OutRows: row}, false); err != nil {
		return err
	}
	submitted := 1
	fed := []int32{0} // a valid id; the step's token comes from the GPU
	// topUp submits fed steps until depth are in flight (steps i.. are not
	// read yet), n are submitted or the cache is full.
	topUp := func(i int) error {
		for submitted < n && submitted-i < depth && p0+submitted < e.nCtx {
			if err := pl.SubmitArgmax(ctx, compute.Step{Pos0: p0 + submitted, Tokens: fed, OutRows: row}, true); err != nil {
				return err
			}
			submitted++
		}
		return nil
	}
	for i := 0; ; i++ {
		// Step i, at position p0+i, is in flight. The first token is read
		// before any step ahead is submitted: on a slow GPU (SwiftShader:
		// ~0.5 s a step) a step ahead would delay the first token by a
		// whole step, while later tokens hide the readback behind them.
		if i > 0 {
			if err := topUp(i); err != nil {
				return err
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		tok, err := pl.ReadArgmax(ctx)
		if err != nil {
			return err
		}
		e.pos++
		if !fn(tok) || i == n-1 {
			return nil
		}
		if i == 0 {
			if err := topUp(1); err != nil {
				return err
			}
		}
		if submitted <= i+1 { // step i+1 would run past the cache
			return &ContextFullError{NCtx: e.nCtx, Pos: e.pos, Need: 1}
		}
	}
}
