package parser

import "fmt"

// Limits on the shape of a template (webgguf patch). Parsing recurses once
// per nested block or bracket, and evaluating recurses once per level of
// the syntax tree; a template of 100 000 nested brackets overflowed the
// goroutine stack (~22 KB a level), which Go cannot recover from. Python's
// Jinja2 itself fails at 100 nested brackets or blocks.
const (
	// MaxNesting bounds nested blocks ({% if %} in {% for %}...) and
	// brackets ((), [], {}) together.
	MaxNesting = 100
	// MaxExpressionDepth bounds the depth of the syntax tree: nesting plus
	// the links of operator and attribute chains (a + b + c is two deep,
	// x[0][0] too), which evaluate recursively.
	MaxExpressionDepth = 500
)

// LimitError reports which limit a template exceeded (webgguf patch). The
// parser and the renderer abort with a panic carrying it (see exec.Exceed);
// package chat recovers it into a typed error.
type LimitError struct {
	// Limit names the limit: "nesting depth", "expression depth", "call
	// depth", "value depth", "value size", "string bytes", "list length",
	// "integer argument", "loop iterations", "render steps" or "render
	// bytes".
	Limit string
	// Max is the limit's value.
	Max int64
	// Got is the size that was asked for, where one was; 0 otherwise.
	Got int64
}

// Error implements error.
func (e *LimitError) Error() string {
	if e.Got > 0 {
		return fmt.Sprintf("%s limit exceeded: %d, more than %d", e.Limit, e.Got, e.Max)
	}
	return fmt.Sprintf("%s limit exceeded: more than %d", e.Limit, e.Max)
}

// nesting is the parser's depth, shared with the parsers it makes for a
// block's arguments.
type nesting struct {
	brackets, depth int
}

// enter counts one level of nesting (a block or bracket) and returns the
// function that leaves it.
func (p *Parser) enter() func() {
	n := p.levels()
	n.brackets++
	n.depth++
	if n.brackets > MaxNesting {
		panic(&LimitError{Limit: "nesting depth", Max: MaxNesting})
	}
	if n.depth > MaxExpressionDepth {
		panic(&LimitError{Limit: "expression depth", Max: MaxExpressionDepth})
	}
	return func() { n.brackets--; n.depth-- }
}

// link counts one link of an operator or attribute chain, which deepens
// the syntax tree without nesting; the caller undoes its links with unlink
// when the chain ends.
func (p *Parser) link() {
	n := p.levels()
	n.depth++
	if n.depth > MaxExpressionDepth {
		panic(&LimitError{Limit: "expression depth", Max: MaxExpressionDepth})
	}
}

// unlink undoes k calls of link.
func (p *Parser) unlink(k int) { p.levels().depth -= k }

func (p *Parser) levels() *nesting {
	if p.nest == nil {
		p.nest = &nesting{}
	}
	return p.nest
}
