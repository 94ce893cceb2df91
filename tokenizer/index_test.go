package tokenizer

import (
	"math/rand/v2"
	"testing"
)

// TestStrIndexMatchesMap checks strIndex against a Go map with llama.cpp's
// rule (token_to_id[word] = i: a later duplicate wins) on random short
// strings with many duplicates, for present and absent keys, at sizes
// around the table's growth points.
func TestStrIndexMatchesMap(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	word := func() string {
		b := make([]byte, 1+r.IntN(4))
		for i := range b {
			b[i] = byte('a' + r.IntN(6)) // a small alphabet: duplicates and shared prefixes
		}
		return string(b)
	}
	for _, n := range []int{0, 1, 2, 3, 5, 767, 768, 769, 5000} {
		keys := make([]string, n)
		want := map[string]int32{}
		for i := range keys {
			keys[i] = word()
			want[keys[i]] = int32(i)
		}
		x := newStrIndex(keys)
		for k, id := range want {
			if got, ok := x.get(k); !ok || got != id {
				t.Fatalf("n=%d: get(%q) = %d, %v; want %d", n, k, got, ok, id)
			}
			if got, ok := x.getBytes([]byte(k)); !ok || got != id {
				t.Fatalf("n=%d: getBytes(%q) = %d, %v; want %d", n, k, got, ok, id)
			}
		}
		for range 200 {
			k := word() + "z" // 'z' is outside the alphabet: never a key
			if got, ok := x.get(k); ok {
				t.Fatalf("n=%d: get(%q) = %d, true for an absent key", n, k, got)
			}
		}
	}
}

// TestPairRanksMatchesMap checks pairRanks against a Go map with
// emplace's rule (the first rank given for a pair stays) on random pairs
// of small ids, so that pairs repeat, including key 0 (ids 0 and 0).
func TestPairRanksMatchesMap(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 2))
	for _, n := range []int{1, 2, 3, 100, 767, 768, 20000} {
		pr := newPairRanks(n)
		want := map[uint64]int32{}
		for i := range n {
			key := uint64(r.IntN(60))<<32 | uint64(r.IntN(60))
			if _, dup := want[key]; !dup {
				want[key] = int32(i)
			}
			pr.add(key, int32(i))
		}
		for a := range uint64(61) {
			for b := range uint64(61) {
				key := a<<32 | b
				w, wok := want[key]
				got, ok := pr.get(key)
				if ok != wok || got != w {
					t.Fatalf("n=%d: get(%d, %d) = %d, %v; want %d, %v", n, a, b, got, ok, w, wok)
				}
			}
		}
	}
}
