package sample

// window is llama.cpp's penalties state: the last n accepted tokens in a
// ring, and how often each occurs in it.
type window struct {
	ring  []int32
	first int
	size  int
	count []int32 // per token id
	stamp []uint32
	epoch uint32
}

func newWindow(n, vocab int) window {
	if n == 0 {
		return window{}
	}
	return window{ring: make([]int32, n), count: make([]int32, vocab), stamp: make([]uint32, vocab)}
}

func (w *window) accept(tok int32) {
	n := len(w.ring)
	if n == 0 {
		return
	}
	w.count[tok]++
	if w.size == n {
		old := w.ring[w.first]
		w.count[old]--
		w.ring[w.first] = tok
		w.first = (w.first + 1) % n
		return
	}
	w.ring[(w.first+w.size)%n] = tok
	w.size++
}

func (w *window) reset() {
	for i := 0; i < w.size; i++ {
		w.count[w.ring[(w.first+i)%len(w.ring)]] = 0
	}
	w.first, w.size = 0, 0
}

// penalize is llama_sampler_penalties_apply on the full, id-ordered
// candidate list: each distinct token of the window once.
func (s *Sampler) penalize() {
	w := &s.win
	p := &s.params
	if len(w.ring) == 0 || w.size == 0 || (p.RepeatPenalty == 1 && p.FrequencyPenalty == 0 && p.PresencePenalty == 0) {
		return
	}
	w.epoch++
	if w.epoch == 0 { // wrapped: clear stale stamps once every 2³² tokens
		clear(w.stamp)
		w.epoch = 1
	}
	for i := 0; i < w.size; i++ {
		tok := w.ring[(w.first+i)%len(w.ring)]
		if w.stamp[tok] == w.epoch {
			continue
		}
		w.stamp[tok] = w.epoch
		c := &s.cur[tok] // candidates are still in id order here
		count := w.count[tok]
		if c.logit <= 0 {
			c.logit *= p.RepeatPenalty
		} else {
			c.logit /= p.RepeatPenalty
		}
		c.logit -= float32(count)*p.FrequencyPenalty + p.PresencePenalty
	}
	s.sorted = false
}
