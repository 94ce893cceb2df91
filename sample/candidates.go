package sample

import "math"

// candidate is llama_token_data: a token, its (transformed) logit and the
// probability the last softmax gave it.
type candidate struct {
	id    int32
	logit float32
	p     float32
}

// softmax is llama_sampler_softmax_impl: p = expf(logit - max), summed in
// float32 in the current order, then divided. It sorts first when asked.
func (s *Sampler) softmax(sort bool) {
	if sort && !s.sorted {
		s.partialSortInplace(len(s.cur))
	}
	c := s.cur
	maxL := c[0].logit
	if !s.sorted {
		for _, x := range c[1:] {
			maxL = max(maxL, x.logit)
		}
	}
	var sum float32
	for i := range c {
		p := expf(c[i].logit - maxL)
		c[i].p = p
		sum += p
	}
	for i := range c {
		c[i].p /= sum
	}
}

// expf and logf are C's single-precision exp and log: computed in float64 and
// rounded once, which is what glibc's correctly rounded versions return.
func expf(x float32) float32 { return float32(math.Exp(float64(x))) }
func logf(x float32) float32 { return float32(math.Log(float64(x))) }
