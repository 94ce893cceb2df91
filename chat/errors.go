package chat

import (
	"fmt"
	"strings"
)

// SyntaxError reports a template that does not parse.
type SyntaxError struct {
	Err error
}

// Error implements error.
func (e *SyntaxError) Error() string { return "chat template syntax: " + shorten(e.Err.Error()) }

// Unwrap returns the parser's error.
func (e *SyntaxError) Unwrap() error { return e.Err }

// RuntimeError reports a template that parsed but failed while rendering
// (an undefined method, a type mismatch, a panic inside the renderer).
type RuntimeError struct {
	Err error
}

// Error implements error.
func (e *RuntimeError) Error() string { return "chat template render: " + shorten(e.Err.Error()) }

// Unwrap returns the renderer's error.
func (e *RuntimeError) Unwrap() error { return e.Err }

// RaisedError is a template's own refusal through raise_exception, e.g.
// "Conversation roles must alternate user/assistant/user/assistant/...".
type RaisedError struct {
	Message string
}

// Error implements error.
func (e *RaisedError) Error() string { return "chat template raised: " + e.Message }

// ValueError reports an input value (a tool definition, tool-call arguments,
// an extra variable) that cannot be given to a template, naming the field.
type ValueError struct {
	Field string
	Err   error
}

// Error implements error.
func (e *ValueError) Error() string { return "chat: " + e.Field + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *ValueError) Unwrap() error { return e.Err }

func fmtField(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// shorten keeps an error message readable: gonja wraps an error once per
// enclosing block, so a deep template yields kilobytes of context. The start
// says where, the end says what.
func shorten(s string) string {
	const head, tail = 300, 500
	if len(s) <= head+tail+16 {
		return s
	}
	return strings.ToValidUTF8(s[:head]+" … "+s[len(s)-tail:], "")
}
