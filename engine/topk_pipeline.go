package engine

import (
	"context"
	"fmt"

	"github.com/webgguf/webgguf/compute"
)

// generateTopKAhead is generateTopK with step i+1 encoded while the GPU
// runs step i: only the token write and the submit wait for the draw.
// The steps and their order are those of EvalTopK in a loop, so the
// tokens are the same.
func (e *Engine) generateTopKAhead(ctx context.Context, tp compute.TopKPipeliner, prompt []int32, n int, cids []int32, clogits []float32, s CandidateSampler, fn func(tok int32) bool) error {
	if len(prompt) > 1 {
		if _, err := e.Eval(ctx, prompt[:len(prompt)-1], LogitsNone); err != nil {
			return err
		}
	}
	tok := prompt[len(prompt)-1]
	row := []int32{0}
	for i := 0; ; i++ {
		if e.pos+1 > e.nCtx {
			return &ContextFullError{NCtx: e.nCtx, Pos: e.pos, Need: 1}
		}
		if tok < 0 || int(tok) >= e.cfg.NVocab {
			return fmt.Errorf("%w: token %d outside vocabulary %d", compute.ErrBadStep, tok, e.cfg.NVocab)
		}
		if err := tp.SubmitTopK(ctx, compute.Step{Pos0: e.pos, Tokens: []int32{tok}, OutRows: row}); err != nil {
			return err
		}
		if i+1 < n && e.pos+2 <= e.nCtx {
			// The next step's token is written at its submit.
			if err := tp.PrepareTopK(ctx, compute.Step{Pos0: e.pos + 1, Tokens: []int32{0}, OutRows: row}); err != nil {
				return err
			}
		}
		if err := tp.ReadTopK(ctx, cids, clogits); err != nil {
			return err
		}
		e.pos++
		var err error
		if tok, err = s.SampleCandidates(cids, clogits); err != nil {
			return err
		}
		if !fn(tok) || i == n-1 {
			return nil
		}
	}
}
