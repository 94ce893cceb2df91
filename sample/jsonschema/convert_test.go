package jsonschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/webgguf/webgguf/sample/grammar"
)

type llamaCase struct {
	Name    string `json:"name"`
	OK      bool   `json:"ok"`
	Schema  string `json:"schema"`
	Grammar string `json:"grammar"`
}

// deliberate lists the cases of llama.cpp's test file where ToGrammar
// returns an error instead of llama.cpp's grammar, with the keyword named.
var deliberate = map[string]string{
	// llama.cpp drops prefixItems when items is present, so a model could
	// write a first item that is not a string.
	"array with empty items and prefixItems": "/prefixItems",
}

// TestLlamaCases: the grammar text of every case of llama.cpp's
// tests/test-json-schema-to-grammar.cpp (testdata/llama_cases.json) is
// llama.cpp's expected text, and every expected failure fails with a
// typed error.
func TestLlamaCases(t *testing.T) {
	data, err := os.ReadFile("testdata/llama_cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []llamaCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) != 75 {
		t.Fatalf("%d cases, want the 75 of llama.cpp's test file", len(cases))
	}
	for _, tc := range cases {
		got, err := ToGrammar([]byte(tc.Schema))
		if ptr, ok := deliberate[tc.Name]; ok {
			var ue *UnsupportedError
			if !errors.As(err, &ue) || ue.Pointer != ptr {
				t.Errorf("%s: got %v, want an UnsupportedError at %s", tc.Name, err, ptr)
			}
			continue
		}
		if !tc.OK {
			var se *SchemaError
			if !errors.As(err, &se) {
				t.Errorf("%s: got %q, %v; want a SchemaError", tc.Name, got, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.Name, err)
			continue
		}
		if tc.Name == "exotic formats" {
			// The one deliberate difference in grammar text: a
			// calendar-exact date rule (TestDateRule).
			got = strings.Replace(got, "date ::= "+dateRule+"\n", "date ::= "+llamaDateRule+"\n", 1)
		}
		if strings.TrimSpace(got) != tc.Grammar {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", tc.Name, got, tc.Grammar)
		}
	}
}

// TestUnsupported: keywords llama.cpp would ignore are errors naming the
// keyword by its JSON pointer.
func TestUnsupported(t *testing.T) {
	for _, tc := range []struct{ schema, ptr string }{
		{`{"type":"number","minimum":0}`, "/minimum"},
		{`{"type":"integer","multipleOf":2}`, "/multipleOf"},
		{`{"type":"string","format":"email"}`, "/format"},
		{`{"type":"string","pattern":"^a+$","maxLength":3}`, "/maxLength"},
		{`{"type":"array","items":{"type":"string"},"uniqueItems":true}`, "/uniqueItems"},
		{`{"type":"object","properties":{"a":{"type":"string"}},"minProperties":1}`, "/minProperties"},
		{`{"type":"object","properties":{"a":{"not":{"type":"string"}}}}`, "/properties/a/not"},
		{`{"properties":{"a/b":{"type":"number","minimum":1}}}`, "/properties/a~1b/minimum"},
		{`{"type":"object","anyOf":[{"type":"string"}]}`, "/type"},
		{`{"type":"object","properties":{"a":{"type":"string"}},"required":["b"]}`, "/required/0"},
		{`{"$defs":{"x":{"type":"number","maximum":3}},"properties":{"p":{"$ref":"#/$defs/x"}}}`, "/$defs/x/maximum"},
		{`{"type":"string","pattern":"^(?=a)b$"}`, "/pattern"},
		{`{"type":"string","pattern":"abc"}`, "/pattern"},
		{`{"$ref":"https://example.com/s.json"}`, "/$ref"},
		{`{"minimum":3}`, "/minimum"},
		{`{"anyOf":[{"type":"string"}],"oneOf":[{"type":"number"}]}`, "/anyOf"},
	} {
		_, err := ToGrammar([]byte(tc.schema))
		var ue *UnsupportedError
		if !errors.As(err, &ue) {
			t.Errorf("%s: got %v, want an UnsupportedError", tc.schema, err)
			continue
		}
		if ue.Pointer != tc.ptr {
			t.Errorf("%s: pointer %q, want %q (%v)", tc.schema, ue.Pointer, tc.ptr, err)
		}
	}
}

// TestBadSchemas: malformed schemas are SchemaErrors, never a panic.
func TestBadSchemas(t *testing.T) {
	for _, s := range []string{
		``, `{`, `{"type":"string"} x`, `[]`, `true`, `{"type":"kaboom"}`, `{"type":5}`,
		`{"properties":[]}`, `{"type":"array","items":{},"minItems":-1}`,
		`{"type":"string","pattern":"^a{2$"}`, `{"type":"string","pattern":"^[ab$"}`,
		`{"type":"string","pattern":"^*$"}`, `{"type":"string","pattern":"^a)b$"}`,
		`{"type":"string","pattern":"^\\d+$"}`, `{"$ref":"#/nope"}`,
		`{"type":"integer","minimum":5,"maximum":1}`, `{"enum":[]}`,
	} {
		_, err := ToGrammar([]byte(s))
		var se *SchemaError
		var ue *UnsupportedError
		if !errors.As(err, &se) && !errors.As(err, &ue) {
			t.Errorf("%s: got %v, want a SchemaError", s, err)
		}
	}
}

// TestDateRule: the date format accepts exactly the dates that exist, leap
// days included (1900 is no leap year, 2000 is).
func TestDateRule(t *testing.T) {
	g, err := ToGrammar([]byte(`{"type":"string","format":"date"}`))
	if err != nil {
		t.Fatal(err)
	}
	c, err := grammar.ParseCompile(g)
	if err != nil {
		t.Fatal(err)
	}
	v := grammar.NewVocab([]string{"x"}, nil)
	n := 0
	for _, year := range []int{0, 4, 100, 1900, 1996, 1999, 2000, 2023, 2024, 2100, 2400, 9996} {
		for month := 1; month <= 12; month++ {
			for day := 1; day <= 31; day++ {
				s := fmt.Sprintf("%04d-%02d-%02d", year, month, day)
				_, perr := time.Parse(time.DateOnly, s)
				m := grammar.NewMatcher(c, v)
				ok := m.AcceptString(`"`+s+`"`) == nil && m.Complete()
				if ok != (perr == nil) {
					t.Errorf("%s: grammar accepts %v, time.Parse %v", s, ok, perr)
				}
				n++
			}
		}
	}
	for _, s := range []string{"2024-00-10", "2024-13-01", "2024-01-00", "2024-1-01", "24-01-01"} {
		m := grammar.NewMatcher(c, v)
		if m.AcceptString(`"`+s+`"`) == nil && m.Complete() {
			t.Errorf("%s accepted", s)
		}
	}
}

// TestRecursive: a self-referencing schema becomes a recursive grammar that
// accepts nested JSON.
func TestRecursive(t *testing.T) {
	g, err := ToGrammar([]byte(`{"$defs":{"node":{"type":"object","properties":{"v":{"type":"integer"},"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["v"]}},"$ref":"#/$defs/node"}`))
	if err != nil {
		t.Fatal(err)
	}
	c, err := grammar.ParseCompile(g)
	if err != nil {
		t.Fatal(err)
	}
	m := grammar.NewMatcher(c, grammar.NewVocab([]string{"x"}, nil))
	if err := m.AcceptString(`{"v": 1, "kids": [{"v": 2, "kids": []}, {"v": -3}]}`); err != nil || !m.Complete() {
		t.Fatalf("nested value: %v complete=%v\n%s", err, m.Complete(), g)
	}
}
