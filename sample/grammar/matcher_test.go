package grammar

import (
	"encoding/binary"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// tok is test-grammar-integration.cpp's token(): a token id inside a test
// string, as 0xff and the id big-endian.
func tok(id uint32) string {
	var b [5]byte
	b[0] = 0xff
	binary.BigEndian.PutUint32(b[1:], id)
	return string(b[:])
}

// matchString is test-grammar-integration.cpp's match_string: the input
// split into tokens (an encoded id, or one code point with id 0), each
// accepted as llama_grammar_accept_token does; it matches when every piece
// is accepted and a stack is then empty.
func matchString(m *Matcher, input string) bool {
	for i := 0; i < len(input); {
		var id int32
		var piece string
		if input[i] == 0xff && i+5 <= len(input) {
			v := binary.BigEndian.Uint32([]byte(input[i+1 : i+5]))
			id, piece = int32(v), "<["+strconv.FormatUint(uint64(v), 10)+"]>"
			i += 5
		} else {
			r, n := utf8.DecodeRuneInString(input[i:])
			piece = string(r)
			i += n
		}
		if err := m.AcceptPiece(id, piece); err != nil {
			return false
		}
	}
	return m.Complete()
}

type matchCase struct {
	name    string
	grammar string
	pass    []string
	fail    []string
}

// The grammar cases of llama.cpp's tests/test-grammar-integration.cpp,
// with their passing and failing strings.
var integrationCases = []matchCase{
	{"simple grammar", "\n            root ::= expr\n            expr ::= term (\"+\" term)*\n            term ::= number\n            number ::= [0-9]+",
		[]string{"42", "1+2+3+4+5", "123+456"},
		[]string{"+", "/ 3", "1+2+3+4+5+", "12a45"}},
	{"simple grammar with tokens", "\n            root ::= <[10]> content <[11]>\n            content ::= (!<[11]>)*",
		[]string{
			tok(10) + "hello world" + tok(11),
			tok(10) + "text with " + tok(12) + " other tokens " + tok(13) + " mixed in" + tok(11),
			tok(10) + tok(11),
			tok(10) + tok(12) + tok(13) + tok(14) + tok(15) + tok(11),
			tok(10) + "a" + tok(11),
		},
		[]string{
			tok(10) + "missing end token",
			tok(10),
			"missing start token" + tok(11),
			tok(10) + tok(11) + tok(11),
			tok(11) + "wrong order" + tok(10),
		}},
	{"medium complexity grammar", `
            root ::= expression
            expression ::= term ws (("+"|"-") ws term)*
            term ::= factor ws (("*"|"/") ws factor)*
            factor ::= number | variable | "(" expression ")" | function-call
            number ::= [0-9]+
            variable ::= [a-zA-Z_][a-zA-Z0-9_]*
            function-call ::= variable ws "(" (expression ("," ws expression)*)? ")"
            ws ::= [ \t\n\r]?`,
		[]string{"42", "1*2*3*4*5", "x", "x+10", "x1+y2", "(a+b)*(c-d)", "func()", "func(x,y+2)", "a*(b+c)-d/e",
			"f(g(x),h(y,z))", "x + 10", "x1 + y2", "(a + b) * (c - d)", "func()", "func(x, y + 2)", "a * (b + c) - d / e",
			"f(g(x), h(y, z))", "123+456", "123*456*789-123/456+789*123",
			"123+456*789-123/456+789*123-456/789+123*456-789/123+456*789-123/456+789*123-456"},
		[]string{"+", "/ 3x", "x + + y", "a * / b", "func(,)", "func(x y)", "(a + b", "x + y)", "a + b * (c - d", "42 +",
			"x +", "x + 10 +", "(a + b) * (c - d", "func(", "func(x, y + 2", "a * (b + c) - d /", "f(g(x), h(y, z)",
			"123+456*789-123/456+789*123-456/789+123*456-789/123+456*789-123/456+789*123-456/"}},
	{"complex grammar with tokens", `
            root ::= reasoning+ content tool-call*
            reasoning ::= <[10]> (!<[11]>)* <[11]>
            content ::= <[20]> (!<[21]>)* <[21]>
            tool-call ::= <[12]> name <[13]> args <[14]>
            name ::= (!<[13]>)+
            args ::= (!<[14]>)*`,
		[]string{
			tok(10) + "I am thinking" + tok(11) + tok(20) + "hello world!" + tok(21) + tok(12) + "search" + tok(13) + "query=test" + tok(14),
			tok(10) + "reasoning 1" + tok(11) + tok(10) + "reasoning 2" + tok(11) + tok(20) + tok(21) + tok(12) + "tool" + tok(13) + tok(14),
			tok(10) + tok(11) + tok(20) + "content" + tok(21),
			tok(10) + "think" + tok(12) + " nested" + tok(11) + tok(20) + tok(10) + "more content" + tok(21) + tok(12) + "fn" + tok(13) + "x=1,y=2" + tok(14) + tok(12) + "fn2" + tok(13) + tok(14),
			tok(10) + "reasoning" + tok(11) + tok(10) + "more" + tok(11) + tok(10) + "even more" + tok(11) + tok(20) + "text" + tok(21) + tok(12) + "a" + tok(13) + "b" + tok(14) + tok(12) + "c" + tok(13) + "d" + tok(14),
		},
		[]string{
			tok(20) + "content only" + tok(21),
			tok(10) + "no closing reasoning",
			tok(10) + tok(11) + tok(20) + "no closing content",
			tok(10) + tok(11) + tok(20) + tok(21) + tok(12) + "incomplete tool",
			tok(10) + tok(11) + tok(11) + tok(20) + tok(21),
		}},
	{"special characters", "\n            root ::= ... \"abc\" ...\n            ",
		[]string{"abcabcabc", "aaaabcccc", "🔵🟠✅abc❌🟠🔵"},
		[]string{"aaabcccc", "aaaaabcccc", "aaaabccc", "aaaabccccc", "🔵🟠✅❌abc❌✅🟠🔵", "🔵🟠abc🟠🔵"}},
	{"* quantifier", `root ::= "a"*`,
		[]string{"", "a", "aaaaa", "aaaaaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
		[]string{"b", "ab", "aab", "ba", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"}},
	{"+ quantifier", `root ::= "a"+`,
		[]string{"a", "aaaaa", "aaaaaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
		[]string{"", "b", "ab", "aab", "ba", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"}},
	{"? quantifier", `root ::= "a"?`, []string{"", "a"}, []string{"b", "ab", "aa", "ba"}},
	{"mixed quantifiers", `
            root ::= cons+ vowel* cons? (vowel cons)*
            vowel ::= [aeiouy]
            cons ::= [bcdfghjklmnpqrstvwxyz]
            `,
		[]string{"yes", "no", "noyes", "crwth", "four", "bryyyy"},
		[]string{"yess", "yesno", "forty", "catyyy"}},
	{"simple exact repetition", "\n            root ::= [ab]{4}\n        ", []string{"aaaa", "bbbb", "abab"}, []string{"a", "b", "aaaaa"}},
	{"simple min repetition", "\n            root ::= [ab]{4,}\n        ", []string{"aaaa", "aaaaab", "bbbb", "ababab"}, []string{"", "aba"}},
	{"simple max repetition", "\n            root ::= [ab]{0,4}\n        ", []string{"", "a", "aa", "aaa", "aaab"}, []string{"aaaaa"}},
	{"min / max repetition", "\n            root ::= (\"0x\" [A-F0-9]{2} \" \"?){3,5}\n        ",
		[]string{"0xFF 0x12 0xAB", "0xFF 0x12 0xAB 0x00 0x00"},
		[]string{"", "0xFF", "0xFF 0x12", "0xFF 0x12 0xAB 0x00 0x00 0x00"}},
	{"segfault", "\n            root ::= ( [x]* )*\n        ", []string{"", "x", "xx"}, []string{"y", "yy"}},
}

func TestIntegration(t *testing.T) {
	for _, c := range integrationCases {
		g, err := ParseCompile(c.grammar)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		m := NewMatcher(g, nil)
		for _, s := range c.pass {
			m.Reset()
			if !matchString(m, s) {
				t.Errorf("%s: %q should match", c.name, s)
			}
		}
		for _, s := range c.fail {
			m.Reset()
			if matchString(m, s) {
				t.Errorf("%s: %q should not match", c.name, s)
			}
		}
	}
}

// The example grammars on strings they describe and strings they do not
// (the grammar's own definition decides, e.g. json.gbnf allows only
// integers and requires an object at the root).
func TestExampleGrammars(t *testing.T) {
	cases := []matchCase{
		{"json", readFile(t, "testdata/json.gbnf"),
			[]string{`{}`, `{"a": 1, "b": [true, false, -3], "c": {"d": "x\ty \u00e9\\n\\u00e9"}}`, "{ \"k\":\n [ ]}"},
			[]string{`[]`, `{"a": 1.5}`, `{"a" 1}`, `{"a": tru}`, `{"a": "b"`, `{"a": "\q"}`}},
		{"list", readFile(t, "testdata/list.gbnf"),
			[]string{"- one\n", "- one\n- two\n"},
			[]string{"", "- \n", "- one", "* one\n", "- a\u2028b\n"}},
		{"chess", readFile(t, "testdata/chess.gbnf"),
			[]string{"1. e4 e5\n2. Nf3 Nc6\n", "1. d4 d5\n2. c4 dxc4\n3. O-O-O Qxd8+\n"},
			[]string{"1. e4 e5\n", "1. e9 e5\n2. a3 a4\n"}},
		{"japanese", readFile(t, "testdata/japanese.gbnf"),
			[]string{"こんにちは", "日本語 カタカナ、ひらがな"},
			[]string{"", "hello", "日本語  二"}},
	}
	for _, c := range cases {
		g, err := ParseCompile(c.grammar)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		m := NewMatcher(g, nil)
		for _, s := range c.pass {
			m.Reset()
			if err := m.AcceptString(s); err != nil || !m.Complete() {
				t.Errorf("%s: %q should match (%v)", c.name, s, err)
			}
		}
		for _, s := range c.fail {
			m.Reset()
			if err := m.AcceptString(s); err == nil && m.Complete() {
				t.Errorf("%s: %q should not match", c.name, s)
			}
		}
	}
}

func readFile(t testing.TB, name string) string {
	t.Helper()
	b, err := osReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(b), "\r\n", "\n")
}
