package sample

import (
	"math"
	"slices"
)

// candidate is llama_token_data: a token, its (transformed) logit and the
// probability the last softmax gave it.
type candidate struct {
	id    int32
	logit float32
	p     float32
}

// byLogitDesc orders like llama.cpp's comparator (a.logit > b.logit); equal
// logits fall back to the lower id so that the order is deterministic.
func byLogitDesc(a, b candidate) int {
	switch {
	case a.logit > b.logit:
		return -1
	case a.logit < b.logit:
		return 1
	case a.id < b.id:
		return -1
	case a.id > b.id:
		return 1
	}
	return 0
}

// partialSort moves the k highest logits to the front of c, sorted: an
// introselect to split, then a sort of the head only, so top-k over a 152k
// vocabulary costs one linear pass plus k·log k.
func partialSort(c []candidate, k int) {
	if k >= len(c) {
		slices.SortFunc(c, byLogitDesc)
		return
	}
	if k <= 0 {
		return
	}
	selectTop(c, k)
	slices.SortFunc(c[:k], byLogitDesc)
}

// selectTop rearranges c so that c[:k] holds the k first elements in
// byLogitDesc order (unsorted among themselves).
func selectTop(c []candidate, k int) {
	lo, hi := 0, len(c)-1
	for lo < hi {
		// median of three as pivot keeps sorted and reversed input linear
		mid := lo + (hi-lo)/2
		if byLogitDesc(c[mid], c[lo]) < 0 {
			c[mid], c[lo] = c[lo], c[mid]
		}
		if byLogitDesc(c[hi], c[lo]) < 0 {
			c[hi], c[lo] = c[lo], c[hi]
		}
		if byLogitDesc(c[hi], c[mid]) < 0 {
			c[hi], c[mid] = c[mid], c[hi]
		}
		pivot := c[mid]
		i, j := lo, hi
		for i <= j {
			for byLogitDesc(c[i], pivot) < 0 {
				i++
			}
			for byLogitDesc(pivot, c[j]) < 0 {
				j--
			}
			if i <= j {
				c[i], c[j] = c[j], c[i]
				i++
				j--
			}
		}
		switch {
		case k-1 <= j:
			hi = j
		case k-1 >= i:
			lo = i
		default:
			return
		}
	}
}

// softmax is llama_sampler_softmax_impl: p = expf(logit - max), summed in
// float32 in the current order, then divided. It sorts first when asked.
func softmax(c []candidate, sorted *bool, sort bool) {
	if sort && !*sorted {
		slices.SortFunc(c, byLogitDesc)
		*sorted = true
	}
	maxL := c[0].logit
	if !*sorted {
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
