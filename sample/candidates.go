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

// before is byLogitDesc(a, b) < 0, small enough to inline in hot loops.
func before(a, b candidate) bool {
	return a.logit > b.logit || (a.logit == b.logit && a.id < b.id)
}

// partialSort moves the k highest logits to the front of c, sorted: an
// introselect to split, then a sort of the head only, so top-k over a 152k
// vocabulary costs one linear pass plus k·log k.
func partialSort(c, scratch []candidate, k int) {
	if k <= 0 {
		return
	}
	if k < len(c) {
		selectTop(c, k)
		c = c[:k]
	}
	sortDesc(c, scratch)
}

// sortDesc sorts c in byLogitDesc order. Long lists go through a radix sort
// on the logits' bits (four byte passes, stable, so equal logits keep their
// current order, which is id order when they were never reordered):
// comparison sorts of a 152k vocabulary cost tens of milliseconds.
func sortDesc(c, scratch []candidate) {
	if len(c) < 512 {
		slices.SortFunc(c, byLogitDesc)
		return
	}
	// One pass counts all four digits; passes whose digit is the same for
	// every element (often the top byte) are skipped.
	var count [4][256]int
	for i := range c {
		k := descKey(c[i].logit)
		count[0][k&0xff]++
		count[1][k>>8&0xff]++
		count[2][k>>16&0xff]++
		count[3][k>>24]++
	}
	src, dst := c, scratch[:len(c)]
	for d := 0; d < 4; d++ {
		cnt := &count[d]
		if cnt[descKey(src[0].logit)>>(8*d)&0xff] == len(src) {
			continue
		}
		sum := 0
		for b := range cnt {
			cnt[b], sum = sum, sum+cnt[b]
		}
		shift := uint(8 * d)
		for i := range src {
			b := descKey(src[i].logit) >> shift & 0xff
			dst[cnt[b]] = src[i]
			cnt[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &c[0] {
		copy(c, src)
	}
}

// descKey maps a float32 to a uint32 whose ascending order is the float's
// descending order.
func descKey(f float32) uint32 {
	b := math.Float32bits(f)
	if b&0x80000000 != 0 {
		b = ^b
	} else {
		b |= 0x80000000
	}
	return ^b
}

// selectTop rearranges c so that c[:k] holds the k first elements in
// byLogitDesc order (unsorted among themselves).
func selectTop(c []candidate, k int) {
	lo, hi := 0, len(c)-1
	for lo < hi {
		// median of three as pivot keeps sorted and reversed input linear
		mid := lo + (hi-lo)/2
		if before(c[mid], c[lo]) {
			c[mid], c[lo] = c[lo], c[mid]
		}
		if before(c[hi], c[lo]) {
			c[hi], c[lo] = c[lo], c[hi]
		}
		if before(c[hi], c[mid]) {
			c[hi], c[mid] = c[mid], c[hi]
		}
		pivot := c[mid]
		i, j := lo, hi
		for i <= j {
			for before(c[i], pivot) {
				i++
			}
			for before(pivot, c[j]) {
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
func softmax(c, scratch []candidate, sorted *bool, sort bool) {
	if sort && !*sorted {
		sortDesc(c, scratch)
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
