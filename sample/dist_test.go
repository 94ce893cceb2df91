package sample

import (
	"math"
	"slices"
	"sort"
	"testing"
)

// chi2Crit001 are the chi-square critical values at significance 0.001 for
// 1..9 degrees of freedom (any statistics table).
var chi2Crit001 = []float64{0, 10.828, 13.816, 16.266, 18.467, 20.515, 22.458, 24.322, 26.124, 27.877}

// testLogits is the row the distribution tests use: distinct values, some
// negative, spread enough that every transform cuts somewhere.
var testLogits = []float32{1.2, -0.4, 2.5, 0.3, -1.7, 1.9, 0.0, -0.9}

// softmax64 is the float64 reference softmax over the given logits.
func softmax64(l []float64) []float64 {
	m := math.Inf(-1)
	for _, x := range l {
		m = math.Max(m, x)
	}
	p := make([]float64, len(l))
	var sum float64
	for i, x := range l {
		p[i] = math.Exp(x - m)
		sum += p[i]
	}
	for i := range p {
		p[i] /= sum
	}
	return p
}

// keepAndTemper renormalises exp(l/T) over the kept ids: the chain's
// temperature comes after the filters.
func keepAndTemper(l []float64, keep map[int]bool, temp float64) []float64 {
	scaled := make([]float64, len(l))
	for i, x := range l {
		if keep[i] {
			scaled[i] = x / temp
		} else {
			scaled[i] = math.Inf(-1)
		}
	}
	return softmax64(scaled)
}

func logits64() []float64 {
	out := make([]float64, len(testLogits))
	for i, x := range testLogits {
		out[i] = float64(x)
	}
	return out
}

// rankByLogit returns ids from most to least likely.
func rankByLogit(l []float64) []int {
	ids := make([]int, len(l))
	for i := range ids {
		ids[i] = i
	}
	sort.Slice(ids, func(a, b int) bool { return l[ids[a]] > l[ids[b]] })
	return ids
}

// chiSquare draws n tokens with pick (no penalty feedback) and compares the
// counts with want; probabilities that are 0 must never be drawn.
func chiSquare(t *testing.T, name string, p Params, logits []float32, want []float64) {
	t.Helper()
	s, err := New(len(logits), p)
	if err != nil {
		t.Fatal(err)
	}
	const n = 60000
	counts := make([]int, len(logits))
	for i := 0; i < n; i++ {
		tok, err := s.pick(logits)
		if err != nil {
			t.Fatal(err)
		}
		counts[tok]++
	}
	var stat float64
	df := -1
	for i, w := range want {
		if w == 0 {
			if counts[i] != 0 {
				t.Errorf("%s: token %d has probability 0 but was drawn %d times", name, i, counts[i])
			}
			continue
		}
		e := w * n
		stat += (float64(counts[i]) - e) * (float64(counts[i]) - e) / e
		df++
	}
	if df == 0 {
		return // one possible token: the zero-probability check above is the test
	}
	if stat > chi2Crit001[df] {
		t.Errorf("%s: chi-square %.2f > %.2f (df %d); counts %v, want %v", name, stat, chi2Crit001[df], df, counts, want)
	}
}

// base is the chain with every filter off at temperature 1.
func base(seed uint32) Params {
	return Params{Temperature: 1, TopP: 1, TypicalP: 1, Seed: seed}
}

func TestDistributionTemperature(t *testing.T) {
	l := logits64()
	all := map[int]bool{0: true, 1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 7: true}
	for i, temp := range []float64{1, 0.5, 2, 0.25} {
		p := base(uint32(10 + i))
		p.Temperature = float32(temp)
		chiSquare(t, "temperature", p, testLogits, keepAndTemper(l, all, temp))
	}
}

func TestDistributionTopK(t *testing.T) {
	l := logits64()
	rank := rankByLogit(l)
	for _, k := range []int{1, 2, 3, 5, 8, 50} {
		keep := map[int]bool{}
		for _, id := range rank[:min(k, len(rank))] {
			keep[id] = true
		}
		p := base(uint32(20 + k))
		p.TopK = k
		p.Temperature = 0.7
		chiSquare(t, "top-k", p, testLogits, keepAndTemper(l, keep, 0.7))
	}
}

func TestDistributionTopP(t *testing.T) {
	l := logits64()
	probs := softmax64(l) // top-p sees the untempered distribution
	rank := rankByLogit(l)
	for i, topP := range []float64{0, 0.3, 0.6, 0.9, 0.99} {
		keep := map[int]bool{}
		var cum float64
		for _, id := range rank {
			keep[id] = true
			cum += probs[id]
			if cum >= topP {
				break
			}
		}
		p := base(uint32(30 + i))
		p.TopP = float32(topP)
		p.Temperature = 1.5
		chiSquare(t, "top-p", p, testLogits, keepAndTemper(l, keep, 1.5))
	}
}

func TestDistributionMinP(t *testing.T) {
	l := logits64()
	probs := softmax64(l)
	pmax := slices.Max(probs)
	for i, minP := range []float64{0.05, 0.2, 0.5, 0.9} {
		keep := map[int]bool{}
		for id, q := range probs {
			if q >= minP*pmax {
				keep[id] = true
			}
		}
		p := base(uint32(40 + i))
		p.MinP = float32(minP)
		chiSquare(t, "min-p", p, testLogits, keepAndTemper(l, keep, 1))
	}
}

func TestDistributionTypical(t *testing.T) {
	l := logits64()
	probs := softmax64(l)
	var h float64
	for _, q := range probs {
		h -= q * math.Log(q)
	}
	ids := rankByLogit(l)
	sort.SliceStable(ids, func(a, b int) bool {
		return math.Abs(-math.Log(probs[ids[a]])-h) < math.Abs(-math.Log(probs[ids[b]])-h)
	})
	for i, typ := range []float64{0.1, 0.5, 0.8, 0.95} {
		keep := map[int]bool{}
		var cum float64
		for _, id := range ids {
			keep[id] = true
			cum += probs[id]
			if cum > typ {
				break
			}
		}
		p := base(uint32(50 + i))
		p.TypicalP = float32(typ)
		chiSquare(t, "typical", p, testLogits, keepAndTemper(l, keep, 1))
	}
}

// TestDistributionPenaltiesAndBias: the expected logits come from
// llama_sampler_penalties_apply's formula, written out here: for a token seen
// c times in the window, l' = (l ≤ 0 ? l·r : l/r) − c·f − p; bias adds first.
func TestDistributionPenaltiesAndBias(t *testing.T) {
	p := base(60)
	p.PenaltyLastN, p.RepeatPenalty, p.FrequencyPenalty, p.PresencePenalty = 4, 1.5, 0.3, 0.2
	p.LogitBias = map[int32]float32{6: 1.25, 4: float32(math.Inf(-1))}
	s, err := New(len(testLogits), p)
	if err != nil {
		t.Fatal(err)
	}
	history := []int32{7, 2, 5, 2, 1} // window of 4 keeps 2, 5, 2, 1
	for _, tok := range history {
		if err := s.Accept(tok); err != nil {
			t.Fatal(err)
		}
	}
	l := logits64()
	l[6] += 1.25
	counts := map[int]float64{2: 2, 5: 1, 1: 1}
	for id, c := range counts {
		if l[id] <= 0 {
			l[id] *= 1.5
		} else {
			l[id] /= 1.5
		}
		l[id] -= c*0.3 + 0.2
	}
	keep := map[int]bool{0: true, 1: true, 2: true, 3: true, 5: true, 6: true, 7: true} // 4 banned
	want := keepAndTemper(l, keep, 1)

	const n = 60000
	got := make([]int, len(testLogits))
	for i := 0; i < n; i++ {
		tok, err := s.pick(testLogits)
		if err != nil {
			t.Fatal(err)
		}
		got[tok]++
	}
	var stat float64
	for i, w := range want {
		if w == 0 {
			if got[i] != 0 {
				t.Errorf("banned token %d drawn %d times", i, got[i])
			}
			continue
		}
		e := w * n
		stat += (float64(got[i]) - e) * (float64(got[i]) - e) / e
	}
	if stat > chi2Crit001[6] {
		t.Errorf("chi-square %.2f > %.2f; counts %v want %v", stat, chi2Crit001[6], got, want)
	}
}

// TestPenaltyLogitsByHand checks the penalised logits themselves, not only
// their distribution, against the formula with hand-picked numbers.
func TestPenaltyLogitsByHand(t *testing.T) {
	p := base(1)
	p.PenaltyLastN, p.RepeatPenalty, p.FrequencyPenalty, p.PresencePenalty = 3, 2, 0.5, 0.25
	s, err := New(4, p)
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range []int32{0, 1, 1, 3} { // window of 3: 1, 1, 3
		s.Accept(tok)
	}
	row := []float32{4, 3, 7, -2}
	for i, x := range row {
		s.all[i] = candidate{id: int32(i), logit: x}
	}
	s.cur = s.all
	s.penalize()
	want := []float32{
		4,                     // 0 left the window
		3/2.0 - 2*0.5 - 0.25,  // 1 seen twice, positive: divided
		7,                     // never seen
		-2*2.0 - 1*0.5 - 0.25, // 3 seen once, negative: multiplied
	}
	for i := range want {
		if s.cur[i].logit != want[i] {
			t.Errorf("token %d: got %v want %v", i, s.cur[i].logit, want[i])
		}
	}
}
