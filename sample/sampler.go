package sample

import "math"

// Sampler draws tokens from logit rows. It keeps its buffers between calls,
// so sampling a token allocates nothing. A Sampler is not safe for
// concurrent use.
type Sampler struct {
	params Params
	vocab  int
	rng    mt19937
	win    window

	all     []candidate // vocab-sized backing store
	scratch []candidate // vocab-sized sort buffer
	bucket  []uint8     // vocab-sized bucket index scratch
	cur     []candidate // the candidates still in play, a prefix of all
	sorted  bool

	scores  []float32 // typical-p scratch
	order   []int32
	tmp     []candidate
	byScore func(a, b int32) bool // s.scoreLess, bound once
}

// New makes a sampler for a vocabulary of vocabSize tokens.
func New(vocabSize int, p Params) (*Sampler, error) {
	if vocabSize <= 0 || vocabSize > 1<<26 {
		return nil, &ParamError{Field: "vocabSize", Value: vocabSize, Why: "must be between 1 and 2^26"}
	}
	if err := p.validate(vocabSize); err != nil {
		return nil, err
	}
	s := &Sampler{params: p, vocab: vocabSize, all: make([]candidate, vocabSize), scratch: make([]candidate, vocabSize), bucket: make([]uint8, vocabSize)}
	s.params.LogitBias = make(map[int32]float32, len(p.LogitBias))
	for k, v := range p.LogitBias {
		s.params.LogitBias[k] = v
	}
	s.win = newWindow(p.PenaltyLastN, vocabSize)
	s.byScore = s.scoreLess
	s.rng.seed(p.Seed)
	return s, nil
}

// Params returns the sampler's parameters.
func (s *Sampler) Params() Params { return s.params }

// Accept records a token in the penalty window without sampling, for the
// prompt's tokens (llama.cpp accepts those too).
func (s *Sampler) Accept(tok int32) error {
	if tok < 0 || int(tok) >= s.vocab {
		return &TokenError{Token: tok, VocabSize: s.vocab}
	}
	s.win.accept(tok)
	return nil
}

// Reset forgets the penalty window and reseeds the generator, as
// llama_sampler_reset does.
func (s *Sampler) Reset() {
	s.win.reset()
	s.rng.seed(s.params.Seed)
}

// Sample picks the next token from logits (one per vocabulary entry), runs
// the chain logit bias → penalties → top-k → typical-p → top-p → min-p →
// temperature → draw, and records the token in the penalty window. NaN or
// infinite logits give a *LogitError.
func (s *Sampler) Sample(logits []float32) (int32, error) {
	tok, err := s.pick(logits)
	if err != nil {
		return -1, err
	}
	s.win.accept(tok)
	return tok, nil
}

// SampleMasked is Sample with only the tokens set in allowed (a bitset,
// bit id%64 of word id/64, at least vocabulary-size bits) in play, as
// llama.cpp's grammar sampler leaves them: the others' logits are -Inf
// before the chain runs (a grammar's mask, sample/grammar). Disallowed
// tokens' logits are not looked at. No allowed token gives ErrNoCandidate.
func (s *Sampler) SampleMasked(logits []float32, allowed []uint64) (int32, error) {
	if len(logits) != s.vocab {
		return -1, &ParamError{Field: "logits", Value: len(logits), Why: "length differs from the vocabulary size"}
	}
	if len(allowed)*64 < s.vocab {
		return -1, &ParamError{Field: "allowed", Value: len(allowed), Why: "mask shorter than the vocabulary"}
	}
	n := 0
	for i, l := range logits {
		if allowed[i>>6]&(1<<(i&63)) == 0 {
			continue
		}
		if math.IsNaN(float64(l)) || math.IsInf(float64(l), 0) {
			return -1, &LogitError{Index: i, Value: l}
		}
		s.all[n] = candidate{id: int32(i), logit: l}
		n++
	}
	if n == 0 {
		return -1, ErrNoCandidate
	}
	s.cur = s.all[:n]
	tok, err := s.chain(n == s.vocab)
	if err != nil {
		return -1, err
	}
	s.win.accept(tok)
	return tok, nil
}

func (s *Sampler) pick(logits []float32) (int32, error) {
	if len(logits) != s.vocab {
		return -1, &ParamError{Field: "logits", Value: len(logits), Why: "length differs from the vocabulary size"}
	}
	for i, l := range logits {
		if math.IsNaN(float64(l)) || math.IsInf(float64(l), 0) {
			return -1, &LogitError{Index: i, Value: l}
		}
		s.all[i] = candidate{id: int32(i), logit: l}
	}
	s.cur = s.all
	return s.chain(true)
}

// Candidates is how many of the largest raw logits SampleCandidates needs
// to pick exactly what Sample on the whole row would: TopK, when the chain
// starts with it in effect, that is when no logit bias and no penalty can
// move a token into or out of the top TopK (bias and penalties are applied
// before top-k); 0 otherwise (the whole row is needed).
func (s *Sampler) Candidates() int {
	p := &s.params
	if p.TopK <= 0 || p.TopK >= s.vocab || len(p.LogitBias) > 0 {
		return 0
	}
	if p.PenaltyLastN != 0 && (p.RepeatPenalty != 1 || p.FrequencyPenalty != 0 || p.PresencePenalty != 0) {
		return 0
	}
	return p.TopK
}

// SampleCandidates is Sample over a subset of the vocabulary: distinct ids
// and their logits, e.g. the top-k a GPU kernel selected, so that only k
// values leave the GPU. It picks what Sample on the whole row would whenever
// the set holds every token the chain's TopK keeps from the biased, penalised
// row. Penalties only lower logits, so a GPU top-k over raw logits should
// fetch TopK plus PenaltyLastN candidates (and TopK must be set).
func (s *Sampler) SampleCandidates(ids []int32, logits []float32) (int32, error) {
	if len(ids) != len(logits) || len(ids) == 0 || len(ids) > s.vocab {
		return -1, &ParamError{Field: "candidates", Value: len(ids), Why: "need 1 to vocabulary-size ids, one logit each"}
	}
	for i, id := range ids {
		if id < 0 || int(id) >= s.vocab {
			return -1, &TokenError{Token: id, VocabSize: s.vocab}
		}
		l := logits[i]
		if math.IsNaN(float64(l)) || math.IsInf(float64(l), 0) {
			return -1, &LogitError{Index: int(id), Value: l}
		}
		s.all[i] = candidate{id: id, logit: l}
	}
	s.cur = s.all[:len(ids)]
	tok, err := s.chain(false)
	if err != nil {
		return -1, err
	}
	s.win.accept(tok)
	return tok, nil
}

// chain runs bias, penalties, filters and the draw over s.cur. idOrder says
// whether s.cur[i].id == i (a whole row), which lets bias and penalties index
// directly.
func (s *Sampler) chain(idOrder bool) (int32, error) {
	s.sorted = false
	p := &s.params

	banned := 0
	if idOrder {
		for tok, b := range p.LogitBias {
			s.cur[tok].logit += b
			if math.IsInf(float64(s.cur[tok].logit), -1) {
				banned++
			}
		}
	} else if len(p.LogitBias) > 0 {
		for i := range s.cur {
			if b, ok := p.LogitBias[s.cur[i].id]; ok {
				s.cur[i].logit += b
				if math.IsInf(float64(s.cur[i].logit), -1) {
					banned++
				}
			}
		}
	}
	if banned == len(s.cur) {
		return -1, ErrNoCandidate
	}
	if banned > 0 || !idOrder {
		// A banned token must never be drawn; llama.cpp relies on its
		// probability being 0, which a draw of exactly 0 would still hit.
		j := 0
		for _, c := range s.cur {
			if !math.IsInf(float64(c.logit), -1) {
				s.cur[j] = c
				j++
			}
		}
		s.cur = s.cur[:j]
		s.penalizeCompacted()
	} else {
		s.penalize()
	}

	s.topK(p.TopK)
	s.typical(p.TypicalP, p.MinKeep)
	s.topP(p.TopP, p.MinKeep)
	s.minP(p.MinP, p.MinKeep)
	if p.Temperature <= 0 {
		// Greedy: llama.cpp's temperature sampler keeps only the first
		// highest logit and its dist sampler then still draws a number
		// (which cannot change the choice); draw it too so that the stream
		// stays aligned with llama.cpp's for later tokens.
		best := 0
		for i := 1; i < len(s.cur); i++ {
			if s.cur[i].logit > s.cur[best].logit {
				best = i
			}
		}
		s.rng.canonical()
		return s.cur[best].id, nil
	}
	s.temperature(p.Temperature)
	return s.cur[s.dist()].id, nil
}

// penalizeCompacted applies the penalties once banned tokens were removed,
// when candidates are no longer indexed by id. Rare (bans only), so a
// linear pass is fine.
func (s *Sampler) penalizeCompacted() {
	w := &s.win
	p := &s.params
	if len(w.ring) == 0 || w.size == 0 || (p.RepeatPenalty == 1 && p.FrequencyPenalty == 0 && p.PresencePenalty == 0) {
		return
	}
	for i := range s.cur {
		c := &s.cur[i]
		count := w.count[c.id]
		if count == 0 {
			continue
		}
		if c.logit <= 0 {
			c.logit *= p.RepeatPenalty
		} else {
			c.logit /= p.RepeatPenalty
		}
		c.logit -= float32(count)*p.FrequencyPenalty + p.PresencePenalty
	}
}
