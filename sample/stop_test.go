package sample

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// runStop pushes pieces and returns everything emitted plus whether it
// stopped.
func runStop(stops []string, pieces []string) (string, bool) {
	m := NewStopMatcher(stops)
	var out strings.Builder
	for _, p := range pieces {
		e, stopped := m.Push(p)
		out.WriteString(e)
		if stopped {
			return out.String(), true
		}
	}
	out.WriteString(m.Flush())
	return out.String(), false
}

func TestStopMatcherCases(t *testing.T) {
	cases := []struct {
		name    string
		stops   []string
		pieces  []string
		want    string
		stopped bool
	}{
		{"no stops", nil, []string{"a", "b"}, "ab", false},
		{"inside one piece", []string{"END"}, []string{"abcENDxyz"}, "abc", true},
		{"across pieces", []string{"<|im_end|>"}, []string{"Hello", " <|im", "_e", "nd|> trailing"}, "Hello ", true},
		{"false start released", []string{"<|im_end|>"}, []string{"a <|im", "_start|>b"}, "a <|im_start|>b", false},
		{"prefix held at end is flushed", []string{"STOP"}, []string{"go ST"}, "go ST", false},
		{"earliest of several", []string{"world", "lo w"}, []string{"hel", "lo world"}, "hel", true},
		{"stop is whole output", []string{"x"}, []string{"x"}, "", true},
		{"overlapping prefix", []string{"aab"}, []string{"a", "a", "a", "b"}, "a", true},
		{"unicode", []string{"。\n"}, []string{"日本", "語。", "\nmore"}, "日本語", true},
		{"empty stop ignored", []string{""}, []string{"abc"}, "abc", false},
	}
	for _, c := range cases {
		got, stopped := runStop(c.stops, c.pieces)
		if got != c.want || stopped != c.stopped {
			t.Errorf("%s: got %q stopped=%v, want %q stopped=%v", c.name, got, stopped, c.want, c.stopped)
		}
	}
}

// TestStopMatcherRandomSplits checks the matcher against the whole-string
// answer (text before the first occurrence of any stop) for random texts
// split at random points, and that nothing past the answer is ever emitted.
func TestStopMatcherRandomSplits(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "<", "|", ">", "é", " ", "\n"}
	stops := []string{"<|a|>", "ab<", "\n\n", "é é"}
	for iter := 0; iter < 5000; iter++ {
		var sb strings.Builder
		for i := rng.IntN(40); i > 0; i-- {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		text := sb.String()
		want, wantStop := text, false
		first := -1
		for _, s := range stops {
			if i := strings.Index(text, s); i >= 0 && (first < 0 || i < first) {
				first = i
			}
		}
		if first >= 0 {
			want, wantStop = text[:first], true
		}
		var pieces []string
		for rest := text; rest != ""; {
			n := 1 + rng.IntN(min(6, len(rest)))
			pieces = append(pieces, rest[:n])
			rest = rest[n:]
		}
		got, stopped := runStop(stops, pieces)
		if got != want || stopped != wantStop {
			t.Fatalf("text %q pieces %q: got %q stopped=%v, want %q stopped=%v", text, pieces, got, stopped, want, wantStop)
		}
	}
}
