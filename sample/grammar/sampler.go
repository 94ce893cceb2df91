package grammar

import (
	"errors"

	"github.com/webgguf/webgguf/sample"
	"github.com/webgguf/webgguf/tokenizer"
)

// TokenizerVocab prepares t's vocabulary for logit rows of n entries (0:
// t.NumTokens(); a model may have more output rows than tokens, those are
// never allowed): pieces as llama.cpp's grammar reads them (token_to_piece
// with special tokens rendered) and t's end-of-generation set.
func TokenizerVocab(t *tokenizer.Tokenizer, n int) *Vocab {
	if n <= 0 {
		n = t.NumTokens()
	}
	pieces := make([]string, n)
	for i := range min(n, t.NumTokens()) {
		pieces[i] = t.Piece(int32(i), true)
	}
	return NewVocab(pieces, t.EOGTokens())
}

// Sampler is grammar-constrained sampling: each step masks the tokens the
// grammar rejects (as llama.cpp's grammar sampler sets their logits to
// -Inf), runs the sampler chain on the rest, and advances the grammar by
// the token drawn. It satisfies engine.Sampler, so engine.Generate takes
// it in place of a *sample.Sampler. Once the grammar is complete only
// tokens that continue it or end generation are drawn; stopping at an
// end-of-generation token stays the caller's decision.
type Sampler struct {
	m    *Matcher
	s    *sample.Sampler
	mask []uint64
}

// NewSampler constrains s by m; m's vocabulary must be s's.
func NewSampler(m *Matcher, s *sample.Sampler) (*Sampler, error) {
	if m.v == nil {
		return nil, errors.New("grammar: the matcher has no vocabulary")
	}
	return &Sampler{m: m, s: s, mask: make([]uint64, (m.v.Size()+63)/64)}, nil
}

// Matcher is the grammar state the sampler advances.
func (g *Sampler) Matcher() *Matcher { return g.m }

// Sample draws the next token among those the grammar allows and advances
// the grammar by it. ErrNoToken when the grammar allows none.
func (g *Sampler) Sample(logits []float32) (int32, error) {
	if len(logits) != g.m.v.Size() {
		return -1, &sample.ParamError{Field: "logits", Value: len(logits), Why: "length differs from the grammar's vocabulary"}
	}
	if g.m.Allowed(g.mask) == 0 {
		return -1, ErrNoToken
	}
	tok, err := g.s.SampleMasked(logits, g.mask)
	if errors.Is(err, sample.ErrNoCandidate) {
		return -1, ErrNoToken
	}
	if err != nil {
		return -1, err
	}
	if err := g.m.Accept(tok); err != nil {
		return -1, err
	}
	return tok, nil
}
