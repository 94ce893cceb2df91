package engine

import (
	"context"

	"github.com/webgguf/webgguf/compute"
)

// Sampler picks the next token from a row of logits; *sample.Sampler
// (llama.cpp's sampler chain) satisfies it.
type Sampler interface {
	Sample(logits []float32) (int32, error)
}

// CandidateSampler is a Sampler that can also draw from a few candidates
// (ids and their logits, best first) with the same result as from the whole
// row: *sample.Sampler when its chain starts with a top-k and nothing
// before it (logit bias, penalties) can lift a token into the top k.
type CandidateSampler interface {
	Sampler
	// Candidates is how many of the best logits SampleCandidates needs to
	// pick what Sample would (0: it needs the whole row).
	Candidates() int
	// SampleCandidates picks from ids (distinct) and their logits.
	SampleCandidates(ids []int32, logits []float32) (int32, error)
}

// Greedy picks the highest logit (the lowest id among equal ones, as
// llama.cpp's greedy sampler).
type Greedy struct{}

// Sample returns the argmax of logits.
func (Greedy) Sample(logits []float32) (int32, error) { return int32(Argmax(logits)), nil }

// Argmax returns the index of the largest value (first among equals).
func Argmax(x []float32) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

// Generate appends prompt (at least one token) to the context, then
// samples up to n tokens, calling fn with each; it stops early when fn
// returns false. Each sampled token is fed back before the next is drawn,
// so the context holds prompt and all but the last sampled token. Stopping
// at end-of-generation tokens is fn's decision. Cancel through ctx.
//
// With Greedy the backend picks the tokens (no logits row comes back) and,
// on the GPU, step i+1 is submitted before step i's token is read; the
// step submitted in vain after a stop writes only cache rows past the
// context, which the next evaluation overwrites (greedy_pipeline.go).
func (e *Engine) Generate(ctx context.Context, prompt []int32, n int, s Sampler, fn func(tok int32) bool) error {
	if e.cfg.Embeddings {
		return &ModeError{Arch: e.cfg.Arch, Want: "logits"}
	}
	if n <= 0 {
		return nil
	}
	if len(prompt) == 0 {
		return &OptionError{"prompt", "empty: Generate needs at least one token to condition on"}
	}
	if _, greedy := s.(Greedy); greedy {
		return e.generateGreedy(ctx, prompt, n, fn)
	}
	if cs, ok := s.(CandidateSampler); ok {
		if tp, ok := e.decode.(compute.TopKProgram); ok {
			if k := cs.Candidates(); k >= 1 && k <= tp.MaxTopK() {
				return e.generateTopK(ctx, prompt, n, k, cs, fn)
			}
		}
	}
	logits, err := e.Eval(ctx, prompt, LogitsLast)
	if err != nil {
		return err
	}
	for i := 0; ; i++ {
		tok, err := s.Sample(logits[0])
		if err != nil {
			return err
		}
		if !fn(tok) || i == n-1 {
			return nil
		}
		if logits, err = e.Eval(ctx, []int32{tok}, LogitsLast); err != nil {
			return err
		}
	}
}

// generateGreedy is Generate with Greedy: the backend picks each token
// (compute.ArgmaxProgram) so no logits row is read back, and where it can
// (pipeliner) the steps are pipelined (greedy_pipeline.go).
func (e *Engine) generateGreedy(ctx context.Context, prompt []int32, n int, fn func(tok int32) bool) error {
	if pl, ok := e.decode.(pipeliner); ok {
		return e.generatePipelined(ctx, pl, prompt, n, fn)
	}
	ids := prompt
	for i := 0; ; i++ {
		tok, err := e.EvalArgmax(ctx, ids)
		if err != nil {
			return err
		}
		if !fn(tok) || i == n-1 {
			return nil
		}
		ids = []int32{tok}
	}
}

// generateTopK is Generate with a CandidateSampler on a backend that selects
// the top k logits itself (compute.TopKProgram): each step reads back k ids
// and logits (512 bytes at most) instead of a vocabulary row (513 KB for
// 128k tokens) and the sampler sorts k values, not the vocabulary.
func (e *Engine) generateTopK(ctx context.Context, prompt []int32, n, k int, s CandidateSampler, fn func(tok int32) bool) error {
	cids, clogits := make([]int32, k), make([]float32, k)
	if tp, ok := e.decode.(compute.TopKPipeliner); ok {
		return e.generateTopKAhead(ctx, tp, prompt, n, cids, clogits, s, fn)
	}
	ids := prompt
	for i := 0; ; i++ {
		if err := e.EvalTopK(ctx, ids, cids, clogits); err != nil {
			return err
		}
		tok, err := s.SampleCandidates(cids, clogits)
		if err != nil {
			return err
		}
		if !fn(tok) || i == n-1 {
			return nil
		}
		ids = []int32{tok}
	}
}
