package jsonschema

import (
	"errors"
	"os"
	"testing"

	"encoding/json"

	"github.com/webgguf/webgguf/sample/grammar"
)

// FuzzToGrammar: any document converts into a grammar that compiles, or
// gives a typed error; never a panic or a hang.
func FuzzToGrammar(f *testing.F) {
	if data, err := os.ReadFile("testdata/llama_cases.json"); err == nil {
		var cases []llamaCase
		if json.Unmarshal(data, &cases) == nil {
			for _, c := range cases {
				f.Add(c.Schema)
			}
		}
	}
	f.Add(`{"type":"string","pattern":"^(a|b(?:c{2,})*)[x-z]?\\.$"}`)
	f.Add(`{"type":"integer","exclusiveMinimum":-1000,"maximum":123456}`)
	f.Fuzz(func(t *testing.T, schema string) {
		g, err := ToGrammar([]byte(schema))
		if err != nil {
			var se *SchemaError
			var ue *UnsupportedError
			if !errors.As(err, &se) && !errors.As(err, &ue) {
				t.Fatalf("untyped error %T %v", err, err)
			}
			return
		}
		if _, err := grammar.ParseCompile(g); err != nil {
			t.Fatalf("grammar does not compile: %v\n%s", err, g)
		}
	})
}
