package enginehost

import (
	"errors"

	"github.com/webgguf/webgguf/sample/grammar"
	"github.com/webgguf/webgguf/sample/jsonschema"
)

// maxGrammars bounds the compiled grammars kept per model: a page that
// sends a new schema with every request must not grow the worker forever.
const maxGrammars = 32

// maxGrammarBytes bounds a grammar or schema's text.
const maxGrammarBytes = 1 << 20

// grammarCache is a model's compiled grammars, keyed by their source, and
// the vocabulary trie they match against (built once per model: on a 128k
// vocabulary it costs far more than compiling a schema).
type grammarCache struct {
	vocab    *grammar.Vocab
	compiled map[string]*grammar.Compiled
}

// constraint compiles (or finds compiled) the request's grammar or JSON
// schema and returns a matcher over the model's vocabulary; nil when the
// request has neither. A grammar that does not parse is an
// invalid-argument error naming line and column; a schema, the keyword's
// JSON pointer.
func (m *loaded) constraint(gbnf, schema string) (*grammar.Matcher, error) {
	if gbnf == "" && schema == "" {
		return nil, nil
	}
	if gbnf != "" && schema != "" {
		return nil, invalid("grammar and response_format exclude each other")
	}
	if len(gbnf) > maxGrammarBytes || len(schema) > maxGrammarBytes {
		return nil, invalid("the grammar or schema is longer than 1 MiB")
	}
	key := "g" + gbnf
	if schema != "" {
		key = "s" + schema
	}
	gc := &m.grammars
	c := gc.compiled[key]
	if c == nil {
		src := gbnf
		if schema != "" {
			g, err := jsonschema.ToGrammar([]byte(schema))
			if err != nil {
				return nil, invalid("response_format: " + err.Error())
			}
			src = g
		}
		var err error
		if c, err = grammar.ParseCompile(src); err != nil {
			var se *grammar.SyntaxError
			if schema == "" || errors.As(err, &se) {
				return nil, invalid("grammar: " + err.Error())
			}
			return nil, invalid("response_format: " + err.Error())
		}
		if gc.compiled == nil || len(gc.compiled) >= maxGrammars {
			gc.compiled = map[string]*grammar.Compiled{}
		}
		gc.compiled[key] = c
	}
	if gc.vocab == nil {
		gc.vocab = grammar.TokenizerVocab(m.tok, int(m.info.NVocab))
	}
	return grammar.NewMatcher(c, gc.vocab), nil
}
