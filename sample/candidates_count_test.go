package sample

import "testing"

// TestCandidates: how many GPU candidates a chain needs, and when it needs
// the whole row (bias and active penalties come before top-k).
func TestCandidates(t *testing.T) {
	d := Defaults()
	set := func(f func(p *Params)) Params { p := d; f(&p); return p }
	for _, c := range []struct {
		name string
		p    Params
		want int
	}{
		{"defaults", d, 40},
		{"top_k 7", set(func(p *Params) { p.TopK = 7 }), 7},
		{"no top_k", set(func(p *Params) { p.TopK = 0 }), 0},
		{"top_k = vocabulary", set(func(p *Params) { p.TopK = 100 }), 0},
		{"logit bias", set(func(p *Params) { p.LogitBias = map[int32]float32{3: 0} }), 0},
		{"repeat penalty", set(func(p *Params) { p.RepeatPenalty = 1.1 }), 0},
		{"frequency penalty", set(func(p *Params) { p.FrequencyPenalty = 0.5 }), 0},
		{"presence penalty", set(func(p *Params) { p.PresencePenalty = -0.5 }), 0},
		{"penalties with no window", set(func(p *Params) { p.RepeatPenalty, p.PenaltyLastN = 1.1, 0 }), 40},
	} {
		s, err := New(100, c.p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := s.Candidates(); got != c.want {
			t.Errorf("%s: Candidates() = %d, want %d", c.name, got, c.want)
		}
	}
}
