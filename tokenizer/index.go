package tokenizer

import (
	"hash/maphash"
	"unsafe"
)

// Two flat open-addressing tables replace Go maps on the tokenizer's build
// path. Building a Llama-3 tokenizer (128k tokens, 280k merges) is the
// largest CPU step of a model load in the browser, where Go's wasm map
// costs ~0.3 µs an operation: the vocabulary index and the merge ranks
// were 0.35 of the 0.54 s `tokenizer.New` took under Node (BenchmarkNewLlama3).
// Both tables are written during New only and read-only afterwards, so the
// Tokenizer stays safe for concurrent use.

// strIndex maps the strings of a fixed slice to their indices; a string
// that occurs twice maps to its last index (llama.cpp's
// token_to_id[word] = i).
type strIndex struct {
	keys  []string
	slots []int32 // index+1 into keys; 0 is empty
	mask  uint64
	seed  maphash.Seed
}

func newStrIndex(keys []string) *strIndex {
	size := tableSize(len(keys))
	x := &strIndex{keys: keys, slots: make([]int32, size), mask: uint64(size - 1), seed: maphash.MakeSeed()}
	for i, k := range keys {
		h := maphash.String(x.seed, k) & x.mask
		for {
			s := x.slots[h]
			if s == 0 {
				x.slots[h] = int32(i + 1)
				break
			}
			if keys[s-1] == k {
				x.slots[h] = int32(i + 1) // later duplicates win
				break
			}
			h = (h + 1) & x.mask
		}
	}
	return x
}

// get returns the index of s, if s is one of the keys.
func (x *strIndex) get(s string) (int32, bool) {
	h := maphash.String(x.seed, s) & x.mask
	for {
		slot := x.slots[h]
		if slot == 0 {
			return 0, false
		}
		if x.keys[slot-1] == s {
			return slot - 1, true
		}
		h = (h + 1) & x.mask
	}
}

// getBytes is get(string(b)) without a copy: get keeps nothing of its
// argument, so viewing b as a string is safe.
func (x *strIndex) getBytes(b []byte) (int32, bool) {
	return x.get(unsafe.String(unsafe.SliceData(b), len(b)))
}

// pairRanks maps a merge's two piece ids (packed into a uint64) to its
// rank; the first rank given for a pair is kept (llama.cpp's emplace).
type pairRanks struct {
	slots []pairSlot
	shift uint
}

// pairSlot keeps key and rank together: one cache line per probe.
type pairSlot struct {
	key  uint64
	rank int32 // rank+1; 0 is empty
}

func newPairRanks(n int) *pairRanks {
	size := tableSize(n)
	r := &pairRanks{slots: make([]pairSlot, size), shift: 64}
	for s := size; s > 1; s >>= 1 {
		r.shift--
	}
	return r
}

// slot is Fibonacci hashing: the top bits of the key times 2^64/φ.
func (r *pairRanks) slot(key uint64) uint64 { return (key * 0x9e3779b97f4a7c15) >> r.shift }

// add records rank for key unless key already has one.
func (r *pairRanks) add(key uint64, rank int32) {
	mask := uint64(len(r.slots) - 1)
	for h := r.slot(key); ; h = (h + 1) & mask {
		s := &r.slots[h]
		if s.rank == 0 {
			s.key, s.rank = key, rank+1
			return
		}
		if s.key == key {
			return
		}
	}
}

// get returns key's rank, if it has one.
func (r *pairRanks) get(key uint64) (int32, bool) {
	mask := uint64(len(r.slots) - 1)
	for h := r.slot(key); ; h = (h + 1) & mask {
		s := &r.slots[h]
		if s.rank == 0 {
			return 0, false
		}
		if s.key == key {
			return s.rank - 1, true
		}
	}
}

// tableSize is a power of two at least 4n/3 (load factor ≤ 3/4; linear
// probes stay short, and Llama-3's 280k merges fit 512k slots, 8 MB,
// rather than 16 MB whose cache misses dominated the build), and at
// least 2.
func tableSize(n int) int {
	size := 2
	for 3*size < 4*n {
		size <<= 1
	}
	return size
}
