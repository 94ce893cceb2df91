package grammar

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Rule layouts from llama.cpp's tests/test-grammar-parser.cpp: the symbol
// ids and the elements of every rule, in rule order, as llama.cpp builds
// them.
func TestParseLayout(t *testing.T) {
	type E = Element
	cases := []struct {
		src   string
		syms  map[string]uint32
		elems []Element
	}{
		{`root ::= "a"{0,5000}`, map[string]uint32{"root": 0, "root_1": 1},
			[]E{{RuleRef, 1}, {End, 0}, {Char, 'a'}, {RuleRef, 1}, {Alt, 0}, {End, 0}}},
		{`root ::= "a"{3,5000}`, map[string]uint32{"root": 0, "root_1": 1},
			[]E{{Char, 'a'}, {Char, 'a'}, {Char, 'a'}, {RuleRef, 1}, {End, 0}, {Char, 'a'}, {RuleRef, 1}, {Alt, 0}, {End, 0}}},
		{`root  ::= "a"`, map[string]uint32{"root": 0}, []E{{Char, 'a'}, {End, 0}}},
		{`root  ::= "a" | [bdx-z] | [^1-3]`, map[string]uint32{"root": 0},
			[]E{{Char, 'a'}, {Alt, 0}, {Char, 'b'}, {CharAlt, 'd'}, {CharAlt, 'x'}, {CharRngUpper, 'z'}, {Alt, 0}, {CharNot, '1'}, {CharRngUpper, '3'}, {End, 0}}},
		{"root  ::= a+\na     ::= \"a\"", map[string]uint32{"a": 1, "root": 0, "root_2": 2},
			[]E{{RuleRef, 1}, {RuleRef, 2}, {End, 0}, {Char, 'a'}, {End, 0}, {RuleRef, 1}, {RuleRef, 2}, {Alt, 0}, {End, 0}}},
		{`root  ::= "a"+`, map[string]uint32{"root": 0, "root_1": 1},
			[]E{{Char, 'a'}, {RuleRef, 1}, {End, 0}, {Char, 'a'}, {RuleRef, 1}, {Alt, 0}, {End, 0}}},
		{"root  ::= a?\na     ::= \"a\"", map[string]uint32{"a": 1, "root": 0, "root_2": 2},
			[]E{{RuleRef, 2}, {End, 0}, {Char, 'a'}, {End, 0}, {RuleRef, 1}, {Alt, 0}, {End, 0}}},
		{`root  ::= "a"?`, map[string]uint32{"root": 0, "root_1": 1},
			[]E{{RuleRef, 1}, {End, 0}, {Char, 'a'}, {Alt, 0}, {End, 0}}},
		{"root  ::= a*\na     ::= \"a\"", map[string]uint32{"a": 1, "root": 0, "root_2": 2},
			[]E{{RuleRef, 2}, {End, 0}, {Char, 'a'}, {End, 0}, {RuleRef, 1}, {RuleRef, 2}, {Alt, 0}, {End, 0}}},
		{`root  ::= "a"*`, map[string]uint32{"root": 0, "root_1": 1},
			[]E{{RuleRef, 1}, {End, 0}, {Char, 'a'}, {RuleRef, 1}, {Alt, 0}, {End, 0}}},
		{`root  ::= "a"{2}`, map[string]uint32{"root": 0}, []E{{Char, 'a'}, {Char, 'a'}, {End, 0}}},
		{`root  ::= "a"{2,}`, map[string]uint32{"root": 0, "root_1": 1},
			[]E{{Char, 'a'}, {Char, 'a'}, {RuleRef, 1}, {End, 0}, {Char, 'a'}, {RuleRef, 1}, {Alt, 0}, {End, 0}}},
		{`root  ::= "a"{ 4}`, map[string]uint32{"root": 0}, []E{{Char, 'a'}, {Char, 'a'}, {Char, 'a'}, {Char, 'a'}, {End, 0}}},
		{`root  ::= "a"{2,4}`, map[string]uint32{"root": 0, "root_1": 1, "root_2": 2},
			[]E{{Char, 'a'}, {Char, 'a'}, {RuleRef, 2}, {End, 0}, {Char, 'a'}, {Alt, 0}, {End, 0}, {Char, 'a'}, {RuleRef, 1}, {Alt, 0}, {End, 0}}},
		{"root  ::= (expr \"=\" term \"\\n\")+\nexpr  ::= term ([-+*/] term)*\nterm  ::= [0-9]+",
			map[string]uint32{"expr": 2, "expr_5": 5, "expr_6": 6, "root": 0, "root_1": 1, "root_4": 4, "term": 3, "term_7": 7},
			[]E{
				{RuleRef, 1}, {RuleRef, 4}, {End, 0},
				{RuleRef, 2}, {Char, '='}, {RuleRef, 3}, {Char, '\n'}, {End, 0},
				{RuleRef, 3}, {RuleRef, 6}, {End, 0},
				{Char, '0'}, {CharRngUpper, '9'}, {RuleRef, 7}, {End, 0},
				{RuleRef, 1}, {RuleRef, 4}, {Alt, 0}, {End, 0},
				{Char, '-'}, {CharAlt, '+'}, {CharAlt, '*'}, {CharAlt, '/'}, {RuleRef, 3}, {End, 0},
				{RuleRef, 5}, {RuleRef, 6}, {Alt, 0}, {End, 0},
				{Char, '0'}, {CharRngUpper, '9'}, {RuleRef, 7}, {Alt, 0}, {End, 0},
			}},
	}
	for _, c := range cases {
		g, err := Parse("\n        " + c.src + "\n    ")
		if err != nil {
			t.Errorf("%q: %v", c.src, err)
			continue
		}
		if !reflect.DeepEqual(g.Symbols, c.syms) {
			t.Errorf("%q: symbols %v, llama.cpp %v", c.src, g.Symbols, c.syms)
		}
		var flat []Element
		for _, r := range g.Rules {
			flat = append(flat, r...)
		}
		if !reflect.DeepEqual(flat, c.elems) {
			t.Errorf("%q: elements\n%v\nllama.cpp\n%v", c.src, flat, c.elems)
		}
	}
}

// Grammars llama.cpp's parser rejects (test-grammar-parser.cpp's
// verify_failure and test-grammar-integration.cpp's missing reference),
// with where our error points.
func TestParseErrors(t *testing.T) {
	cases := []struct {
		src       string
		line, col int
		undefined string // *UndefinedRuleError with this name, else *SyntaxError
	}{
		{"\n        root ::= \"a\"{,}\"\n    ", 2, 22, ""},
		{"\n        root ::= (((((([^x]*){0,99}){0,99}){0,99}){0,99}){0,99}){0,99}\n    ", 2, 37, ""},
		{"\n        root ::= \"a\"{,10}\"\n    ", 2, 22, ""},
		{"\n        root ::= \"a\"{5000}\n    ", 2, 21, ""},
		{"\n        root ::= \"a\"{5000,}\n    ", 2, 21, ""},
		{"\n        root ::= \"a\"{5000,6000}\n    ", 2, 21, ""},
		{"root ::= expr\n        expr ::= term (\"+\" term)*\n        term ::= numero\n        number ::= [0-9]+", 3, 18, "numero"},
		// More of llama.cpp's syntax errors.
		{"root ::= \"abc", 1, 14, ""},
		{"root ::= [a-", 1, 13, ""},
		{"root := \"a\"", 1, 6, ""},
		{"root ::= \"a\" )", 1, 14, ""},
		{"root ::= (\"a\"", 1, 10, ""},
		{"root ::= \"\\q\"", 1, 11, ""},
		{"root ::= \"\\x4\"", 1, 13, ""},
		{"root ::= * \"a\"", 1, 10, ""},
		{"root ::= \"a\"\n\nfoo ::= bar", 3, 9, "bar"},
		{"root ::= <hello>", 1, 10, ""},
		{"root ::= \"a\"{3,1}", 1, 13, ""},
	}
	for _, c := range cases {
		_, err := Parse(c.src)
		if c.undefined != "" {
			var ue *UndefinedRuleError
			if !errors.As(err, &ue) || ue.Name != c.undefined || ue.Line != c.line || ue.Col != c.col {
				t.Errorf("%q: %v, want undefined rule %s at %d:%d", c.src, err, c.undefined, c.line, c.col)
			}
			continue
		}
		var se *SyntaxError
		if !errors.As(err, &se) || se.Line != c.line || se.Col != c.col {
			t.Errorf("%q: %v, want a syntax error at %d:%d", c.src, err, c.line, c.col)
		}
	}
}

// test-grammar-integration.cpp's left-recursion and missing-root cases.
func TestCompileErrors(t *testing.T) {
	for _, src := range []string{
		`root ::= "a" | root "a"`,
		"root ::= asdf\nasdf ::= \"a\" | asdf \"a\"",
		"root ::= asdf\nasdf ::= \"a\" | foo \"b\"\nfoo ::= \"c\" | asdf \"d\" | \"e\"",
		"root ::= asdf\nasdf ::= \"a\" | foo \"b\"\nfoo ::= \"c\" | empty asdf \"d\" | \"e\"\nempty ::= \"blah\" | ",
	} {
		var le *LeftRecursionError
		if _, err := ParseCompile(src); !errors.As(err, &le) {
			t.Errorf("%q: %v, want left recursion", src, err)
		}
	}
	g, err := Parse("rot ::= expr\nexpr ::= term (\"+\" term)*\nterm ::= number\nnumber ::= [0-9]+")
	if err != nil {
		t.Fatal(err)
	}
	var nr *NoRootError
	if _, err := Compile(g, "root"); !errors.As(err, &nr) {
		t.Errorf("missing root: %v", err)
	}
	// Not left-recursive: the recursion is after a character.
	if _, err := ParseCompile("root ::= \"a\" root | \"b\""); err != nil {
		t.Error(err)
	}
}

// llama.cpp's own grammars parse and compile.
func TestParseExamples(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.gbnf")
	if len(files) < 4 {
		t.Fatalf("testdata grammars missing: %v", files)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseCompile(string(src)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

var osReadFile = os.ReadFile
