package grammar

import (
	"errors"
	"math"
	"testing"

	"github.com/webgguf/webgguf/sample"
)

// Greedy constrained sampling picks the best allowed token (llama.cpp: the
// grammar sets the others' logits to -Inf before the chain), advances the
// grammar, allows EOS once complete, and reports a grammar that allows
// nothing as ErrNoToken.
func TestSampler(t *testing.T) {
	pieces := []string{"x", "{", "}", "\"", "a", "<eos>", "{}"}
	v := NewVocab(pieces, []int32{5})
	c, err := ParseCompile(`root ::= "{" "a"* "}"`)
	if err != nil {
		t.Fatal(err)
	}
	p := sample.Defaults()
	p.Temperature = 0
	ss, err := sample.New(len(pieces), p)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMatcher(c, v)
	g, err := NewSampler(m, ss)
	if err != nil {
		t.Fatal(err)
	}
	// "x" and EOS have the largest logits throughout; the grammar forbids
	// them until "{a}" is complete.
	logits := []float32{9, 1, 2, 0, 3, 8, 0.5}
	var got []int32
	for range 4 {
		tk, err := g.Sample(logits)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, tk)
		if tk == 4 {
			logits[4] = -1 // let "}" win next
		}
	}
	// "{" (logit 1 beats "{}"'s 0.5), "a" (3), "}" once "a" dropped to -1,
	// then only EOS: the grammar is complete and nothing may follow.
	want := []int32{1, 4, 2, 5}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("tokens %v, want %v", got, want)
		}
	}

	// A state where no token of the vocabulary fits.
	c2, err := ParseCompile(`root ::= "q"`)
	if err != nil {
		t.Fatal(err)
	}
	g2, err := NewSampler(NewMatcher(c2, v), ss)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g2.Sample(logits); !errors.Is(err, ErrNoToken) {
		t.Fatalf("no allowed token: %v", err)
	}
}

// SampleMasked ignores the logits of masked tokens (a NaN there is not an
// error) and draws only allowed ones.
func TestSampleMasked(t *testing.T) {
	p := sample.Defaults()
	p.Seed = 7
	ss, err := sample.New(3, p)
	if err != nil {
		t.Fatal(err)
	}
	mask := []uint64{0b010}
	for range 20 {
		tk, err := ss.SampleMasked([]float32{float32(math.NaN()), -5, 10}, mask)
		if err != nil || tk != 1 {
			t.Fatalf("token %d, %v", tk, err)
		}
	}
	if _, err := ss.SampleMasked([]float32{1, 2, 3}, []uint64{0}); !errors.Is(err, sample.ErrNoCandidate) {
		t.Fatalf("empty mask: %v", err)
	}
}
