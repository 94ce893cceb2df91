package sample

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func argmax(l []float32) int32 {
	best := 0
	for i, x := range l {
		if x > l[best] {
			best = i
		}
	}
	return int32(best)
}

func randomRow(rng *rand.Rand, n int, scale float64) []float32 {
	row := make([]float32, n)
	for i := range row {
		row[i] = float32(rng.NormFloat64() * scale)
	}
	return row
}

// TestGreedyEquivalents: top-k 1, top-p 0, temperature 0 and negative
// temperatures all pick the highest logit (the lowest id among equals).
func TestGreedyEquivalents(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	variants := map[string]func(*Params){
		"top-k 1":     func(p *Params) { p.TopK = 1 },
		"top-p 0":     func(p *Params) { p.TopK, p.TopP, p.MinP = 0, 0, 0 },
		"temp 0":      func(p *Params) { p.Temperature = 0 },
		"temp -1":     func(p *Params) { p.Temperature = -1 },
		"min-p 1":     func(p *Params) { p.TopK, p.TopP, p.MinP = 0, 1, 1 },
		"temp 0 bare": func(p *Params) { *p = Params{TopP: 1, TypicalP: 1} },
	}
	for name, change := range variants {
		p := Defaults()
		p.Temperature = 1.3
		p.PenaltyLastN = 0
		change(&p)
		s, err := New(1000, p)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 200; i++ {
			row := randomRow(rng, 1000, 0.3)
			got, err := s.Sample(row)
			if err != nil {
				t.Fatal(err)
			}
			if want := argmax(row); got != want {
				t.Fatalf("%s: got %d, argmax %d", name, got, want)
			}
		}
	}
	// all equal: greedy takes the first
	s, _ := New(5, Params{TopP: 1, TypicalP: 1})
	if got, _ := s.Sample([]float32{2, 2, 2, 2, 2}); got != 0 {
		t.Errorf("all equal greedy: got %d want 0", got)
	}
}

// TestAllEqualIsUniform: equal logits give the uniform distribution, with and
// without a top-k larger than the vocabulary.
func TestAllEqualIsUniform(t *testing.T) {
	row := []float32{0.5, 0.5, 0.5, 0.5, 0.5, 0.5}
	uniform := []float64{1.0 / 6, 1.0 / 6, 1.0 / 6, 1.0 / 6, 1.0 / 6, 1.0 / 6}
	chiSquare(t, "all equal", base(70), row, uniform)
	p := base(71)
	p.TopK = 1000
	chiSquare(t, "all equal, k > vocab", p, row, uniform)
	p = base(72)
	p.MinP = 0.5
	chiSquare(t, "all equal, min-p", p, row, uniform)
}

// TestKLargerThanVocab: a top-k beyond the vocabulary keeps everything.
func TestKLargerThanVocab(t *testing.T) {
	p := base(73)
	p.TopK = 1 << 20
	chiSquare(t, "k > vocab", p, testLogits, softmax64(logits64()))
}

func TestBadLogits(t *testing.T) {
	s, err := New(4, Defaults())
	if err != nil {
		t.Fatal(err)
	}
	nan := float32(math.NaN())
	for _, c := range []struct {
		row []float32
		idx int
	}{
		{[]float32{0, nan, 1, 2}, 1},
		{[]float32{0, 1, float32(math.Inf(1)), 2}, 2},
		{[]float32{float32(math.Inf(-1)), 1, 2, 3}, 0},
	} {
		_, err := s.Sample(c.row)
		var le *LogitError
		if !errors.As(err, &le) || le.Index != c.idx {
			t.Errorf("%v: got %v, want LogitError at %d", c.row, err, c.idx)
		}
	}
	if _, err := s.Sample([]float32{1, 2, 3}); err == nil {
		t.Error("short row accepted")
	}
}

func TestBadParams(t *testing.T) {
	bad := []Params{
		{Temperature: float32(math.NaN())},
		{TopP: float32(math.Inf(1))},
		{PenaltyLastN: -1},
		{PenaltyLastN: 4, RepeatPenalty: 0},
		{MinKeep: -2},
		{LogitBias: map[int32]float32{10: 1}},
		{LogitBias: map[int32]float32{-1: 1}},
		{LogitBias: map[int32]float32{1: float32(math.NaN())}},
	}
	for _, p := range bad {
		var pe *ParamError
		if _, err := New(10, p); !errors.As(err, &pe) {
			t.Errorf("%+v: got %v, want ParamError", p, err)
		}
	}
	if _, err := New(0, Defaults()); err == nil {
		t.Error("empty vocabulary accepted")
	}
	s, _ := New(10, Defaults())
	var te *TokenError
	if err := s.Accept(10); !errors.As(err, &te) {
		t.Errorf("Accept(10) on 10 tokens: %v", err)
	}
}

// TestBans: -Inf biases are never drawn; banning everything is an error.
func TestBans(t *testing.T) {
	p := base(80)
	p.LogitBias = map[int32]float32{0: float32(math.Inf(-1)), 2: float32(math.Inf(-1))}
	s, _ := New(3, p)
	for i := 0; i < 2000; i++ {
		if tok, err := s.Sample([]float32{5, -5, 5}); err != nil || tok != 1 {
			t.Fatalf("got %d, %v; only token 1 is allowed", tok, err)
		}
	}
	p.LogitBias[1] = float32(math.Inf(-1))
	s, _ = New(3, p)
	if _, err := s.Sample([]float32{1, 2, 3}); !errors.Is(err, ErrNoCandidate) {
		t.Errorf("all banned: %v", err)
	}
}

// TestSeedDeterminism: the same seed gives the same tokens, Reset replays
// them, and another seed gives another sequence.
func TestSeedDeterminism(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	rows := make([][]float32, 64)
	for i := range rows {
		rows[i] = randomRow(rng, 500, 1)
	}
	run := func(s *Sampler) []int32 {
		var out []int32
		for _, r := range rows {
			tok, err := s.Sample(r)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, tok)
		}
		return out
	}
	p := Defaults()
	p.Seed = 42
	p.RepeatPenalty = 1.1
	a, _ := New(500, p)
	b, _ := New(500, p)
	first, second := run(a), run(b)
	a.Reset()
	replay := run(a)
	p.Seed = 43
	c, _ := New(500, p)
	other := run(c)
	same := func(x, y []int32) bool {
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	if !same(first, second) || !same(first, replay) {
		t.Fatal("same seed gave different tokens")
	}
	if same(first, other) {
		t.Fatal("seeds 42 and 43 gave the same 64 tokens")
	}
}

// TestNoAllocations: sampling from a 152k vocabulary allocates nothing per
// token once the sampler exists.
func TestNoAllocations(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	row := randomRow(rng, 151936, 2)
	for name, p := range map[string]Params{
		"defaults":   Defaults(),
		"typical":    {Temperature: 1, TopK: 100, TypicalP: 0.9, TopP: 1, PenaltyLastN: 64, RepeatPenalty: 1.2},
		"top-p only": {Temperature: 1, TopP: 0.9, TypicalP: 1},
		"greedy":     {TopP: 1, TypicalP: 1},
	} {
		s, err := New(len(row), p)
		if err != nil {
			t.Fatal(err)
		}
		s.Sample(row) // warm the scratch buffers
		if n := testing.AllocsPerRun(20, func() { s.Sample(row) }); n != 0 {
			t.Errorf("%s: %v allocations per token", name, n)
		}
	}
}
