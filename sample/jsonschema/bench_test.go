package jsonschema

import (
	"fmt"
	"strings"
	"testing"

	"github.com/webgguf/webgguf/sample/grammar"
)

// schema20 is a 20-property object schema of mixed types (the issue's
// benchmark shape).
func schema20() string {
	var props []string
	kinds := []string{`{"type":"string","maxLength":32}`, `{"type":"integer","minimum":0,"maximum":1000}`, `{"type":"boolean"}`,
		`{"enum":["a","b","c"]}`, `{"type":"array","items":{"type":"number"},"maxItems":4}`}
	for i := 0; i < 20; i++ {
		props = append(props, fmt.Sprintf(`"field%d":%s`, i, kinds[i%len(kinds)]))
	}
	return `{"type":"object","properties":{` + strings.Join(props, ",") + `},"required":["field0","field1","field2"]}`
}

// BenchmarkToGrammar: converting and compiling a 20-property schema, the
// one-time cost of a response_format request.
func BenchmarkToGrammar(b *testing.B) {
	s := []byte(schema20())
	for b.Loop() {
		g, err := ToGrammar(s)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := grammar.ParseCompile(g); err != nil {
			b.Fatal(err)
		}
	}
}
