package schematest

import (
	"context"
	"strings"
	"testing"

	validator "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/sample"
	"github.com/webgguf/webgguf/sample/grammar"
	"github.com/webgguf/webgguf/tokenizer"
)

// Compile compiles the JSON schema src with the independent validator,
// asserting "format" keywords when assertFormat is set (by default the
// validator treats them as annotations); a schema that does not compile
// fails t.
func Compile(t testing.TB, src string, assertFormat bool) *validator.Schema {
	t.Helper()
	c := validator.NewCompiler()
	if assertFormat {
		c.AssertFormat()
	}
	doc, err := validator.UnmarshalJSON(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// Generate resets e and samples at most n tokens after prompt with p under
// the grammar comp (vocab its view of the model's tokens). An
// end-of-generation token stops it and is left out of got; ended says
// whether one came. The returned sampler's matcher holds the grammar's
// state after got, so a caller can ask whether the output is complete.
func Generate(t testing.TB, e *engine.Engine, tk *tokenizer.Tokenizer, comp *grammar.Compiled, vocab *grammar.Vocab, p sample.Params, prompt []int32, n int) (got []int32, ended bool, gs *grammar.Sampler) {
	t.Helper()
	ss, err := sample.New(e.Config().NVocab, p)
	if err != nil {
		t.Fatal(err)
	}
	gs, err = grammar.NewSampler(grammar.NewMatcher(comp, vocab), ss)
	if err != nil {
		t.Fatal(err)
	}
	e.Reset()
	err = e.Generate(context.Background(), prompt, n, gs, func(tok int32) bool {
		if tk.IsEOG(tok) {
			ended = true
			return false
		}
		got = append(got, tok)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return got, ended, gs
}
