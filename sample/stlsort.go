package sample

import "math/bits"

// The sorts llama.cpp's samplers call, reproduced step for step from
// libstdc++ (std::sort's introsort, std::partial_sort's heap select) so that
// equal logits end in the same order as in llama.cpp: the draw walks the
// candidates in order, so the order of ties decides which token a random
// number selects. less is the comparator (llama.cpp's a.logit > b.logit).

// stdSort is libstdc++'s std::sort.
func stdSort[T any](s []T, less func(a, b T) bool) {
	if len(s) < 2 {
		return
	}
	introsortLoop(s, 0, len(s), 2*(bits.Len(uint(len(s)))-1), less)
	finalInsertionSort(s, 0, len(s), less)
}

const stlThreshold = 16

func introsortLoop[T any](s []T, first, last, depth int, less func(a, b T) bool) {
	for last-first > stlThreshold {
		if depth == 0 {
			stdPartialSortRange(s, first, last, last, less) // heap sort
			return
		}
		depth--
		cut := unguardedPartitionPivot(s, first, last, less)
		introsortLoop(s, cut, last, depth, less)
		last = cut
	}
}

func unguardedPartitionPivot[T any](s []T, first, last int, less func(a, b T) bool) int {
	mid := first + (last-first)/2
	moveMedianToFirst(s, first, first+1, mid, last-1, less)
	return unguardedPartition(s, first+1, last, first, less)
}

func moveMedianToFirst[T any](s []T, result, a, b, c int, less func(a, b T) bool) {
	switch {
	case less(s[a], s[b]):
		switch {
		case less(s[b], s[c]):
			s[result], s[b] = s[b], s[result]
		case less(s[a], s[c]):
			s[result], s[c] = s[c], s[result]
		default:
			s[result], s[a] = s[a], s[result]
		}
	case less(s[a], s[c]):
		s[result], s[a] = s[a], s[result]
	case less(s[b], s[c]):
		s[result], s[c] = s[c], s[result]
	default:
		s[result], s[b] = s[b], s[result]
	}
}

func unguardedPartition[T any](s []T, first, last, pivot int, less func(a, b T) bool) int {
	for {
		for less(s[first], s[pivot]) {
			first++
		}
		last--
		for less(s[pivot], s[last]) {
			last--
		}
		if first >= last {
			return first
		}
		s[first], s[last] = s[last], s[first]
		first++
	}
}

func finalInsertionSort[T any](s []T, first, last int, less func(a, b T) bool) {
	if last-first > stlThreshold {
		insertionSort(s, first, first+stlThreshold, less)
		for i := first + stlThreshold; i < last; i++ {
			unguardedLinearInsert(s, i, less)
		}
		return
	}
	insertionSort(s, first, last, less)
}

func insertionSort[T any](s []T, first, last int, less func(a, b T) bool) {
	if first == last {
		return
	}
	for i := first + 1; i < last; i++ {
		if less(s[i], s[first]) {
			v := s[i]
			copy(s[first+1:i+1], s[first:i])
			s[first] = v
		} else {
			unguardedLinearInsert(s, i, less)
		}
	}
}

func unguardedLinearInsert[T any](s []T, last int, less func(a, b T) bool) {
	v := s[last]
	next := last - 1
	for less(v, s[next]) {
		s[last] = s[next]
		last = next
		next--
	}
	s[last] = v
}

// stdPartialSort is libstdc++'s std::partial_sort(s, s+middle, s+len(s)).
func stdPartialSort[T any](s []T, middle int, less func(a, b T) bool) {
	stdPartialSortRange(s, 0, middle, len(s), less)
}

func stdPartialSortRange[T any](s []T, first, middle, last int, less func(a, b T) bool) {
	// __heap_select
	makeHeap(s, first, middle, less)
	for i := middle; i < last; i++ {
		if less(s[i], s[first]) {
			popHeap(s, first, middle, i, less)
		}
	}
	// __sort_heap
	for middle-first > 1 {
		middle--
		popHeap(s, first, middle, middle, less)
	}
}

func makeHeap[T any](s []T, first, last int, less func(a, b T) bool) {
	n := last - first
	if n < 2 {
		return
	}
	for parent := (n - 2) / 2; ; parent-- {
		adjustHeap(s, first, parent, n, s[first+parent], less)
		if parent == 0 {
			return
		}
	}
}

func popHeap[T any](s []T, first, last, result int, less func(a, b T) bool) {
	v := s[result]
	s[result] = s[first]
	adjustHeap(s, first, 0, last-first, v, less)
}

func adjustHeap[T any](s []T, first, hole, n int, v T, less func(a, b T) bool) {
	top := hole
	child := hole
	for child < (n-1)/2 {
		child = 2 * (child + 1)
		if less(s[first+child], s[first+child-1]) {
			child--
		}
		s[first+hole] = s[first+child]
		hole = child
	}
	if n&1 == 0 && child == (n-2)/2 {
		child = 2 * (child + 1)
		s[first+hole] = s[first+child-1]
		hole = child - 1
	}
	// __push_heap
	parent := (hole - 1) / 2
	for hole > top && less(s[first+parent], v) {
		s[first+hole] = s[first+parent]
		hole = parent
		parent = (hole - 1) / 2
	}
	s[first+hole] = v
}
