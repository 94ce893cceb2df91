package sample

import "math"

// Each transform mirrors the llama.cpp sampler of the same name
// (src/llama-sampling.cpp) on the candidate list, including the order it
// leaves the candidates in: the draw walks them in that order, so order is
// part of which token a random number selects.

// topK is llama_sampler_top_k_impl.
func (s *Sampler) topK(k int) {
	if k <= 0 {
		return
	}
	k = min(k, len(s.cur))
	if !s.sorted {
		s.partialSortInplace(k)
	}
	s.cur = s.cur[:k]
}

// topP is llama_sampler_top_p_apply: softmax in the current order, then the
// smallest prefix of the sorted list whose mass reaches p (at least
// minKeep). Long unsorted lists sort their best 256 into a buffer first and
// everything only when those do not reach p, as llama.cpp does.
func (s *Sampler) topP(p float32, minKeep int) {
	if p >= 1 {
		return
	}
	s.softmax(false)
	n := len(s.cur)
	k := n
	pdata := s.cur
	if !s.sorted && n > 1024 {
		k = min(256, n)
		llamaPartialSort(s.cur, k, s.scratch, s.bucket)
		pdata = s.scratch
	} else if !s.sorted {
		s.partialSortInplace(k)
		pdata = s.cur
	}
	var cum float32
	last := n
	for i := 0; i < n; i++ {
		cum += pdata[i].p
		if cum >= p && i+1 >= minKeep {
			last = i + 1
			break
		}
		if !s.sorted && i == k-1 {
			k = n
			llamaPartialSort(s.cur, k, s.scratch, s.bucket)
			pdata = s.scratch
		}
	}
	if !s.sorted {
		copy(s.cur, s.scratch[:last])
		s.sorted = true
	}
	s.cur = s.cur[:last]
}

// minP is llama_sampler_min_p_apply: keep logits ≥ max + log(p), in their
// current order, unless that leaves fewer than minKeep.
func (s *Sampler) minP(p float32, minKeep int) {
	if p <= 0 || len(s.cur) == 0 {
		return
	}
	if !s.sorted {
		maxL := float32(-math.MaxFloat32)
		for _, c := range s.cur {
			maxL = max(maxL, c.logit)
		}
		minL := maxL + logf(p)
		n := 0
		for _, c := range s.cur {
			if c.logit >= minL {
				n++
			}
		}
		if n > 0 && n >= minKeep {
			j := 0
			for _, c := range s.cur {
				if c.logit >= minL {
					s.cur[j] = c
					j++
				}
			}
			s.cur = s.cur[:j]
			return
		}
		s.partialSortInplace(len(s.cur))
	}
	minL := s.cur[0].logit + logf(p)
	i := 1
	for ; i < len(s.cur); i++ {
		if s.cur[i].logit < minL && i >= minKeep {
			break
		}
	}
	s.cur = s.cur[:i]
}

// typical is llama_sampler_typical_apply (locally typical sampling): order by
// |−log p − H| and keep the smallest prefix with mass above p. A probability
// that underflowed to 0 contributes nothing to H and sorts last, where
// llama.cpp would compute 0·log 0 = NaN.
func (s *Sampler) typical(p float32, minKeep int) {
	if p >= 1 {
		return
	}
	s.softmax(true)
	var entropy float32
	for _, c := range s.cur {
		if c.p > 0 {
			entropy += -c.p * logf(c.p)
		}
	}
	n := len(s.cur)
	s.scores = s.scores[:0]
	s.order = s.order[:0]
	for i, c := range s.cur {
		score := float32(math.Inf(1))
		if c.p > 0 {
			score = float32(math.Abs(float64(-logf(c.p) - entropy)))
		}
		s.scores = append(s.scores, score)
		s.order = append(s.order, int32(i))
	}
	stdSort(s.order, s.byScore)
	last := n
	var cum float32
	for i, idx := range s.order {
		cum += s.cur[idx].p
		if cum > p && (minKeep == 0 || i >= minKeep-1) {
			last = i + 1
			break
		}
	}
	s.tmp = s.tmp[:0]
	for _, idx := range s.order[:last] {
		s.tmp = append(s.tmp, s.cur[idx])
	}
	s.cur = s.cur[:last]
	copy(s.cur, s.tmp)
	s.sorted = false
}

// scoreLess orders candidate indices by typical-p score; New binds it to
// s.byScore once, so sorting allocates nothing.
func (s *Sampler) scoreLess(a, b int32) bool { return s.scores[a] < s.scores[b] }

// temperature is llama_sampler_temp_impl: t ≤ 0 keeps only the first
// highest logit (all others −Inf); otherwise logits are divided by t.
func (s *Sampler) temperature(t float32) {
	if t <= 0 {
		maxI := 0
		for i := 1; i < len(s.cur); i++ {
			if s.cur[i].logit > s.cur[maxI].logit {
				s.cur[maxI].logit = float32(math.Inf(-1))
				maxI = i
			} else {
				s.cur[i].logit = float32(math.Inf(-1))
			}
		}
		return
	}
	for i := range s.cur {
		s.cur[i].logit /= t
	}
}

// dist is llama_sampler_dist_apply: softmax with a float64 total, one
// uniform double from mt19937, and the first candidate whose running sum
// reaches total·u.
//
// A single candidate still consumes a draw: the llama.cpp build this package
// is tested against (node-llama-cpp's libllama) does so, and skipping it
// would shift every later random number.
func (s *Sampler) dist() int {
	maxL := s.cur[0].logit
	if !s.sorted {
		for _, c := range s.cur[1:] {
			maxL = max(maxL, c.logit)
		}
	}
	var total float64
	for i := range s.cur {
		p := expf(s.cur[i].logit - maxL)
		s.cur[i].p = p
		total += float64(p)
	}
	target := total * s.rng.canonical()
	selected := -1
	var run float64
	for i := range s.cur {
		if selected < 0 {
			run += float64(s.cur[i].p)
			if run >= target {
				selected = i
			}
		}
		s.cur[i].p = float32(float64(s.cur[i].p) / total)
	}
	if selected < 0 {
		selected = len(s.cur) - 1
	}
	return selected
}
