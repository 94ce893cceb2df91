package grammar

import (
	"errors"
	"testing"
)

// FuzzGrammar: any text parses into a grammar or gives a typed error, never
// a panic or a hang; a grammar that compiles can be matched against text.
func FuzzGrammar(f *testing.F) {
	f.Add(`root ::= "a"{2,4} | [^x-z\n]* "b"+ ("c" | .)?`, "aab")
	f.Add("root ::= item+\nitem ::= \"- \" [^\\r\\n\\x0b\\x0c\\x85\\u2028\\u2029]+ \"\\n\"\n", "- x\n")
	f.Add("root ::= <[10]> (!<[11]>)* <[11]>", "hi")
	f.Add("root ::= ( [x]* )*", "xx")
	f.Add(`root ::= "\U0010FFFF\u00e9\x41\t"`, "\U0010FFFFéA\t")
	f.Add("root ::= a\na ::= \"a\" | a \"b\" # left recursion", "a")
	f.Fuzz(func(t *testing.T, src, input string) {
		g, err := Parse(src)
		if err != nil {
			var se *SyntaxError
			var ue *UndefinedRuleError
			if !errors.As(err, &se) && !errors.As(err, &ue) {
				t.Fatalf("untyped error %T %v", err, err)
			}
			return
		}
		c, err := Compile(g, "root")
		if err != nil {
			var nr *NoRootError
			var le *LeftRecursionError
			var ue *UndefinedRuleError
			if !errors.As(err, &nr) && !errors.As(err, &le) && !errors.As(err, &ue) {
				t.Fatalf("untyped error %T %v", err, err)
			}
			return
		}
		// A vocabulary cut from the input (bytes of multi-byte characters
		// split across pieces on purpose): the trie mask must equal
		// llama.cpp's per-token rule along a walk of allowed tokens.
		var pieces []string
		for i := 0; i < len(input); i += 2 {
			pieces = append(pieces, input[i:min(i+1+i%3, len(input))])
		}
		pieces = append(pieces, "</s>")
		v := NewVocab(pieces, []int32{int32(len(pieces) - 1)})
		mv := NewMatcher(c, v)
		mask := make([]uint64, (v.Size()+63)/64)
		for step := 0; step < 8; step++ {
			mv.Allowed(mask)
			want := naiveAllowed(mv)
			next := int32(-1)
			for id := range want {
				if maskBit(mask, id) != want[id] {
					t.Fatalf("token %d %q: trie %v, llama.cpp's rule %v", id, pieces[id], maskBit(mask, id), want[id])
				}
				if want[id] && next < 0 && !v.eog[id] {
					next = int32(id)
				}
			}
			if next < 0 || mv.Accept(next) != nil {
				break
			}
		}
		m := NewMatcher(c, nil)
		for _, r := range input {
			if err := m.AcceptPiece(0, string(r)); err != nil {
				var re *RejectedError
				if !errors.As(err, &re) {
					t.Fatalf("untyped error %T %v", err, err)
				}
				break
			}
		}
		m.Complete()
	})
}
