package grammar

import (
	"errors"
	"fmt"
)

// SyntaxError is a grammar that does not parse: Msg says what was expected
// at Line and Col (1-based; Col counts bytes), Offset is the byte offset.
type SyntaxError struct {
	Line, Col, Offset int
	Msg               string
}

// Error implements error.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("grammar: %d:%d: %s", e.Line, e.Col, e.Msg)
}

// UndefinedRuleError is a rule referenced but never defined; Line and Col
// are those of its first reference.
type UndefinedRuleError struct {
	Name      string
	Line, Col int
}

// Error implements error.
func (e *UndefinedRuleError) Error() string {
	return fmt.Sprintf("grammar: %d:%d: undefined rule identifier '%s'", e.Line, e.Col, e.Name)
}

// LeftRecursionError is a rule that can reach itself without consuming a
// character, which llama.cpp's stack matcher cannot run.
type LeftRecursionError struct {
	Rule string
}

// Error implements error.
func (e *LeftRecursionError) Error() string {
	return fmt.Sprintf("grammar: left recursion detected for nonterminal '%s'", e.Rule)
}

// NoRootError is a grammar without the start rule.
type NoRootError struct {
	Root string
}

// Error implements error.
func (e *NoRootError) Error() string {
	return fmt.Sprintf("grammar: grammar does not contain a '%s' symbol", e.Root)
}

// RejectedError is a token (or string) the grammar does not accept in its
// current state; the matcher is left unchanged.
type RejectedError struct {
	Token int32 // -1 for a string
	Piece string
}

// Error implements error.
func (e *RejectedError) Error() string {
	if e.Token < 0 {
		return fmt.Sprintf("grammar: input %q not accepted", e.Piece)
	}
	return fmt.Sprintf("grammar: token %d (%q) not accepted", e.Token, e.Piece)
}

// ErrNoToken is returned when the grammar allows no token of the vocabulary
// in its current state (and end of generation is not allowed either).
var ErrNoToken = errors.New("grammar: no token of the vocabulary is allowed by the grammar")
