package sample

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// oracleCases are parameter sets covering every stage of the chain alone and
// together.
func oracleCases() []Params {
	d := Defaults()
	withTemp := func(t float32) Params { p := Defaults(); p.Temperature = t; return p }
	cases := []Params{d, withTemp(1), withTemp(0.3), withTemp(2), withTemp(0), withTemp(-1)}
	p := Defaults()
	p.TopK, p.TopP, p.MinP = 0, 1, 0
	p.Temperature = 1
	cases = append(cases, p) // pure softmax draw
	for _, k := range []int{1, 2, 5, 100000} {
		q := p
		q.TopK = k
		cases = append(cases, q)
	}
	for _, tp := range []float32{0, 0.3, 0.9} {
		q := p
		q.TopP = tp
		cases = append(cases, q)
	}
	for _, mp := range []float32{0.05, 0.5} {
		q := p
		q.MinP = mp
		cases = append(cases, q)
	}
	for _, ty := range []float32{0.2, 0.7} {
		q := p
		q.TypicalP = ty
		cases = append(cases, q)
	}
	q := Defaults()
	q.PenaltyLastN, q.RepeatPenalty, q.FrequencyPenalty, q.PresencePenalty = 16, 1.3, 0.4, 0.25
	cases = append(cases, q)
	q = Defaults()
	q.LogitBias = map[int32]float32{0: 5, 3: -2.5, 7: 10}
	cases = append(cases, q)
	q = Params{Temperature: 0.7, TopK: 20, TypicalP: 0.8, TopP: 0.8, MinP: 0.02, MinKeep: 3,
		PenaltyLastN: 8, RepeatPenalty: 1.1, FrequencyPenalty: 0.2, PresencePenalty: 0.1}
	cases = append(cases, q)
	for i := range cases {
		cases[i].Seed = uint32(1000 + i)
	}
	return cases
}

// TestMatchesLlamaCpp runs the same logits through this package and through
// llama.cpp's own samplers (libllama, loaded with purego), step by step with
// penalties accumulating, and requires the same token at every step.
func TestMatchesLlamaCpp(t *testing.T) {
	l := loadLlama(t)
	total := 0
	for _, vocab := range []int{9, 64, 1500, 32000, 151936} {
		for ci, p := range oracleCases() {
			name := fmt.Sprintf("vocab=%d/case=%d", vocab, ci)
			ours, err := New(vocab, p)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			theirs := l.chain(vocab, p)
			rng := rand.New(rand.NewPCG(uint64(vocab), uint64(ci)))
			logits := make([]float32, vocab)
			steps := 40
			switch {
			case vocab > 100000:
				steps = 3 // Qwen's vocabulary: the radix sort and partial top-p paths at full size
			case vocab >= 32000:
				steps = 8
			}
			for step := 0; step < steps; step++ {
				scale := []float64{0.5, 2, 6}[step%3] // flat to peaked rows
				for i := range logits {
					logits[i] = float32(rng.NormFloat64() * scale)
				}
				want := theirs.sample(logits)
				got, err := ours.Sample(logits)
				if err != nil {
					t.Fatalf("%s step %d: %v", name, step, err)
				}
				if got != want {
					t.Errorf("%s step %d: got token %d, llama.cpp %d (params %+v)", name, step, got, want, p)
					break
				}
				total++
			}
			theirs.free()
		}
	}
	t.Logf("%d sampled tokens identical to llama.cpp's", total)
}

// TestMatchesLlamaCppWithTies repeats the comparison on logits rounded to
// steps of 0.5, so that many are exactly equal: the order llama.cpp's
// std::sort, std::partial_sort and bucket sort leave ties in decides which
// token a draw selects, and this package reproduces those sorts.
func TestMatchesLlamaCppWithTies(t *testing.T) {
	l := loadLlama(t)
	total := 0
	for _, vocab := range []int{64, 3000, 32000} {
		for ci, p := range oracleCases() {
			ours, err := New(vocab, p)
			if err != nil {
				t.Fatal(err)
			}
			theirs := l.chain(vocab, p)
			rng := rand.New(rand.NewPCG(uint64(vocab)+7, uint64(ci)))
			logits := make([]float32, vocab)
			steps := 30
			if vocab >= 32000 {
				steps = 4
			}
			for step := 0; step < steps; step++ {
				for i := range logits {
					logits[i] = float32(math.Round(rng.NormFloat64()*4) / 2)
				}
				want := theirs.sample(logits)
				got, err := ours.Sample(logits)
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Errorf("vocab=%d case=%d step %d: got %d, llama.cpp %d", vocab, ci, step, got, want)
					break
				}
				total++
			}
			theirs.free()
		}
	}
	t.Logf("%d tokens from tied logits identical to llama.cpp's", total)
}
