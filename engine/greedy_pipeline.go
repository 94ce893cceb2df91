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
}

// generatePipelined is greedy Generate with one step in flight ahead of
// the host: step i+1 (fed step i's token on the GPU) is encoded and
// submitted before step i's token is read (from the second token on), so
// the host's encode and the readback's latency hide behind the GPU's work.
//
// Whether to continue (fn's answer, an end-of-generation token) is known
// only once step i's token is read, after step i+1 was submitted. A step
// submitted in vain writes its K and V rows at the position after the
// context and nothing else; that position is not counted (e.pos counts
// the steps whose token was read) and the next evaluation there
// overwrites the rows before anything reads them. The number of steps (n)
// and the cache's end are known in advance, so no step is submitted past
// them.
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
	row := []int32{0}
	if err := pl.SubmitArgmax(ctx, compute.Step{Pos0: e.pos, Tokens: []int32{last}, OutRows: row}, false); err != nil {
		return err
	}
	fed := []int32{0} // a valid id; the step's token comes from the GPU
	for i := 0; ; i++ {
		// Step i, at position e.pos, is in flight. The first token is
		// read before step 1 is submitted: on a slow GPU (SwiftShader:
		// ~0.5 s a step) a step ahead would delay the first token by a
		// whole step, while later tokens hide the readback behind it.
		ahead := i+1 < n && e.pos+2 <= e.nCtx
		if ahead && i > 0 {
			if err := pl.SubmitArgmax(ctx, compute.Step{Pos0: e.pos + 1, Tokens: fed, OutRows: row}, true); err != nil {
				return err
			}
		}
		tok, err := pl.ReadArgmax(ctx)
		if err != nil {
			return err
		}
		e.pos++
		if !fn(tok) || i == n-1 {
			return nil
		}
		if !ahead {
			return &ContextFullError{NCtx: e.nCtx, Pos: e.pos, Need: 1}
		}
		if i == 0 {
			if err := pl.SubmitArgmax(ctx, compute.Step{Pos0: e.pos, Tokens: fed, OutRows: row}, true); err != nil {
				return err
			}
		}
	}
}
