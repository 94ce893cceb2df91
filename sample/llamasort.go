package sample

// logitGreater is llama.cpp's comparator: a.logit > b.logit, no tie-break.
func logitGreater(a, b candidate) bool { return a.logit > b.logit }

// Bucket layout of llama_token_data_array_partial_sort: 128 buckets over
// logits -10..10, computed in float32 like the C code (no fused multiply-add).
const (
	nBuckets    = 128
	bucketLow   = float32(-10)
	bucketHigh  = float32(10)
	bucketScale = float32(nBuckets) / (bucketHigh - bucketLow)
	bucketInter = -bucketLow * bucketScale
)

// llamaPartialSort is llama_token_data_array_partial_sort: it writes to res
// the candidates of the buckets that hold the npartial best, the first
// npartial of them sorted, without changing cur, and returns res's length.
// bucket is scratch of len(cur).
func llamaPartialSort(cur []candidate, npartial int, res []candidate, bucket []uint8) int {
	var histo [nBuckets]int
	for i, c := range cur {
		ib := cvtt32(float32(bucketScale*c.logit) + bucketInter)
		ib = max(0, min(nBuckets-1, ib))
		bucket[i] = uint8(ib)
		histo[ib]++
	}
	nhave := 0
	ib := nBuckets - 1
	for ; ib >= 0; ib-- {
		nhave += histo[ib]
		if nhave >= npartial {
			break
		}
	}
	if ib < 0 {
		ib = 0 // npartial > len(cur): C++ reads histo[-1]; never asked by the samplers
	}
	var ptr [nBuckets]int // next free slot of each bucket in res
	off := 0
	for j := nBuckets - 1; j >= ib; j-- {
		ptr[j] = off
		off += histo[j]
	}
	for i, c := range cur {
		if j := int(bucket[i]); j >= ib {
			res[ptr[j]] = c
			ptr[j]++
		}
	}
	p, ndone := 0, 0
	for j := nBuckets - 1; j > ib; j-- {
		stdSort(res[p:p+histo[j]], logitGreater)
		p += histo[j]
		ndone += histo[j]
	}
	stdPartialSort(res[p:p+histo[ib]], npartial-ndone, logitGreater)
	return nhave
}

// partialSortInplace is llama_token_data_array_partial_sort_inplace: it
// leaves the npartial best candidates sorted at the front of s.cur and cuts
// the list to them.
func (s *Sampler) partialSortInplace(npartial int) {
	if npartial <= 128 {
		stdPartialSort(s.cur, npartial, logitGreater)
	} else {
		llamaPartialSort(s.cur, npartial, s.scratch, s.bucket)
		copy(s.cur, s.scratch[:npartial])
	}
	s.cur = s.cur[:npartial]
	s.sorted = true
}

// cvtt32 is C's float-to-int conversion on x86 (cvttss2si, 32-bit): values
// outside int32's range, and NaN, become INT_MIN.
func cvtt32(f float32) int {
	if !(f > -2147483904 && f < 2147483648) {
		return -2147483648
	}
	return int(int32(f))
}
