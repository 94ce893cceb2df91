package grammar

import (
	"math/rand/v2"
	"testing"
)

// naiveAllowed is llama_grammar_apply_impl token by token: each piece
// decoded from the matcher's partial UTF-8 state and run through
// llama_grammar_reject_candidates_for_stack (rejects) on every stack. The
// trie walk of Allowed must give the same set.
func naiveAllowed(m *Matcher) []bool {
	v := m.v
	out := make([]bool, v.Size())
	complete := m.Complete()
	for id, piece := range v.pieces {
		if v.eog[id] {
			out[id] = complete
			continue
		}
		if piece == "" || piece[0] == 0 {
			continue
		}
		cps, p := decodeUTF8(nil, piece, m.partial)
		cps = cutAtZero(cps)
		for _, s := range m.stacks {
			if !m.rejects(s, cps, p, int32(id)) {
				out[id] = true
				break
			}
		}
	}
	return out
}

func maskBit(mask []uint64, id int) bool { return mask[id>>6]&(1<<(id&63)) != 0 }

// randomVocab makes pieces from JSON-ish text, multi-byte characters (whole
// and cut into their bytes), invalid bytes and a few special cases.
func randomVocab(r *rand.Rand, n int) []string {
	atoms := []string{"{", "}", "[", "]", "\"", ":", ",", " ", "\n", "\t", "\\", "a", "b", "e", "f", "l", "n", "r", "s", "t", "u",
		"0", "1", "9", "-", ".", "x", "N", "O", "é", "日", "本", "ア", "🔵", "\u2028"}
	pieces := []string{"", "\x00a", "\xff", "\x80", "\xbf\x80", "\xc3", "\xe6\x97", "\xf0\x9f", "\x94\xb5", "\xa9", "\xc3\xa9", "\xe6", "\x97\xa5"}
	for len(pieces) < n {
		k := 1 + r.IntN(5)
		s := ""
		for range k {
			s += atoms[r.IntN(len(atoms))]
		}
		if r.IntN(6) == 0 { // cut a multi-byte character
			cut := 1 + r.IntN(len(s))
			if r.IntN(2) == 0 {
				s = s[:cut]
			} else {
				s = s[cut-1:]
			}
		}
		if s != "" {
			pieces = append(pieces, s)
		}
	}
	return pieces
}

// The trie mask equals llama.cpp's per-token rejection at every step of
// random constrained walks, mid-sequence UTF-8 states included.
func TestMaskMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pieces := randomVocab(r, 3000)
	eog := []int32{int32(len(pieces))}
	pieces = append(pieces, "</s>")
	v := NewVocab(pieces, eog)
	grammars := map[string]string{
		"json":     readFile(t, "testdata/json.gbnf"),
		"japanese": readFile(t, "testdata/japanese.gbnf"),
		"list":     readFile(t, "testdata/list.gbnf"),
		"chess":    readFile(t, "testdata/chess.gbnf"),
		"tokens":   "root ::= <[20]> (!<[21]>)* <[21]> \"a\"",
		"any":      "root ::= . [^a-z\\u00e9] [\\u0100-\\U0010FFFF]* \"x\"",
	}
	mask := make([]uint64, (v.Size()+63)/64)
	partialSteps := 0
	for name, src := range grammars {
		c, err := ParseCompile(src)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for walk := 0; walk < 6; walk++ {
			m := NewMatcher(c, v)
			for step := 0; step < 40; step++ {
				n := m.Allowed(mask)
				want := naiveAllowed(m)
				var allowed []int32
				for id := range want {
					if maskBit(mask, id) != want[id] {
						t.Fatalf("%s walk %d step %d: token %d %q: trie %v, llama.cpp's rule %v", name, walk, step, id, pieces[id], maskBit(mask, id), want[id])
					}
					if want[id] {
						allowed = append(allowed, int32(id))
					}
				}
				if n != len(allowed) {
					t.Fatalf("count %d, %d set", n, len(allowed))
				}
				if m.partial.nRemain > 0 {
					partialSteps++
				}
				if len(allowed) == 0 {
					break
				}
				tk := allowed[r.IntN(len(allowed))]
				if err := m.Accept(tk); err != nil {
					t.Fatalf("%s: an allowed token %d %q is not accepted: %v", name, tk, pieces[tk], err)
				}
				if v.eog[tk] {
					break
				}
			}
		}
	}
	if partialSteps == 0 {
		t.Error("no walk went through a partial UTF-8 state")
	}
}

// End of generation: allowed only when a stack is empty, and accepting it
// before that is an error.
func TestEOG(t *testing.T) {
	v := NewVocab([]string{"a", "b", "ab", "<eos>"}, []int32{3})
	c, err := ParseCompile(`root ::= "a" "b"?`)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMatcher(c, v)
	mask := make([]uint64, 1)
	m.Allowed(mask)
	if !maskBit(mask, 0) || maskBit(mask, 1) || !maskBit(mask, 2) || maskBit(mask, 3) {
		t.Fatalf("start: mask %b", mask[0])
	}
	if err := m.Accept(3); err == nil {
		t.Fatal("EOS accepted before the grammar is complete")
	}
	if err := m.Accept(0); err != nil {
		t.Fatal(err)
	}
	m.Allowed(mask)
	if maskBit(mask, 0) || !maskBit(mask, 1) || maskBit(mask, 2) || !maskBit(mask, 3) {
		t.Fatalf("after a: mask %b", mask[0])
	}
	if err := m.Accept(1); err != nil {
		t.Fatal(err)
	}
	if n := m.Allowed(mask); n != 1 || !maskBit(mask, 3) {
		t.Fatalf("after ab: %d allowed, mask %b", n, mask[0])
	}
	if err := m.Accept(3); err != nil {
		t.Fatal(err)
	}
}

// A character split over two tokens: the first token's lead bytes are
// allowed when some completion could match (llama_grammar_match_partial
// _char), the continuation completes it.
func TestPartialUTF8(t *testing.T) {
	v := NewVocab([]string{"\xc3", "\xa9", "\xa8", "\xe6", "e", "\xc3\xa9"}, nil)
	c, err := ParseCompile(`root ::= [é] "e"`)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMatcher(c, v)
	mask := make([]uint64, 1)
	m.Allowed(mask)
	// \xc3 can complete to é; \xe6 (U+6000..U+6FFF) cannot; a lone
	// continuation byte is invalid.
	if !maskBit(mask, 0) || maskBit(mask, 1) || maskBit(mask, 3) || maskBit(mask, 4) || !maskBit(mask, 5) {
		t.Fatalf("start: mask %b", mask[0])
	}
	if err := m.Accept(0); err != nil {
		t.Fatal(err)
	}
	m.Allowed(mask)
	if !maskBit(mask, 1) || maskBit(mask, 2) || maskBit(mask, 4) {
		t.Fatalf("after \\xc3: mask %b", mask[0])
	}
	if err := m.Accept(2); err == nil {
		t.Fatal("\\xc3\\xa8 (è) accepted")
	}
	if err := m.Accept(1); err != nil {
		t.Fatal(err)
	}
	if err := m.Accept(4); err != nil || !m.Complete() {
		t.Fatalf("é then e: %v, complete %v", err, m.Complete())
	}
}
