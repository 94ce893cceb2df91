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
