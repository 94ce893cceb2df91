package sample

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// topIDs returns the n highest-logit ids of row, in id order (as a GPU
// kernel might hand them over).
func topIDs(row []float32, n int) ([]int32, []float32) {
	ids := make([]int32, len(row))
	for i := range ids {
		ids[i] = int32(i)
	}
	slices.SortFunc(ids, func(a, b int32) int {
		switch {
		case row[a] > row[b]:
			return -1
		case row[a] < row[b]:
			return 1
		}
		return int(a - b)
	})
	ids = ids[:n]
	slices.Sort(ids)
	logits := make([]float32, n)
	for i, id := range ids {
		logits[i] = row[id]
	}
	return ids, logits
}

// TestSampleCandidatesMatchesFullRow: with top-k plus the penalty window
// fetched, sampling from candidates gives the same tokens as sampling from
// the whole row, step after step.
func TestSampleCandidatesMatchesFullRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, p := range []Params{
		Defaults(),
		{Temperature: 1.1, TopK: 10, TopP: 0.8, MinP: 0.02, TypicalP: 0.9, PenaltyLastN: 16, RepeatPenalty: 1.3, FrequencyPenalty: 0.3, PresencePenalty: 0.2, LogitBias: map[int32]float32{5: -3}},
		{TopK: 1, TopP: 1, TypicalP: 1},
	} {
		p.Seed = 99
		full, _ := New(5000, p)
		part, _ := New(5000, p)
		for step := 0; step < 100; step++ {
			row := randomRow(rng, 5000, 2)
			ids, logits := topIDs(row, p.TopK+p.PenaltyLastN)
			want, err := full.Sample(row)
			if err != nil {
				t.Fatal(err)
			}
			got, err := part.SampleCandidates(ids, logits)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("params %+v step %d: candidates gave %d, full row %d", p, step, got, want)
			}
		}
	}
}

func TestSampleCandidatesErrors(t *testing.T) {
	s, _ := New(10, Defaults())
	var pe *ParamError
	if _, err := s.SampleCandidates([]int32{1, 2}, []float32{1}); !errors.As(err, &pe) {
		t.Errorf("length mismatch: %v", err)
	}
	if _, err := s.SampleCandidates(nil, nil); !errors.As(err, &pe) {
		t.Errorf("empty: %v", err)
	}
	var te *TokenError
	if _, err := s.SampleCandidates([]int32{3, 10}, []float32{1, 2}); !errors.As(err, &te) {
		t.Errorf("id out of range: %v", err)
	}
	var le *LogitError
	if _, err := s.SampleCandidates([]int32{3, 4}, []float32{1, nanValue}); !errors.As(err, &le) || le.Index != 4 {
		t.Errorf("NaN: %v", err)
	}
}

var nanValue = float32(math.NaN())
