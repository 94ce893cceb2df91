package chat

import (
	"errors"
	"fmt"
	"strings"

	"github.com/webgguf/webgguf/chat/internal/gonja/exec"
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

// LimitError reports a template that exceeded one of the limits that keep
// an untrusted template from exhausting the stack, memory or time (see
// Limits). It arrives wrapped: in a *SyntaxError when parsing found it, in a
// *RuntimeError when rendering did; errors.As finds it in both.
type LimitError struct {
	// Limit names the limit, one of the keys of Limits().
	Limit string
	// Max is the limit's value.
	Max int64
	// Got is the size the template asked for, where one is known.
	Got int64
}

// Error implements error.
func (e *LimitError) Error() string {
	if e.Got > 0 {
		return fmt.Sprintf("%s limit exceeded: %d, more than %d", e.Limit, e.Got, e.Max)
	}
	return fmt.Sprintf("%s limit exceeded: more than %d", e.Limit, e.Max)
}

// Limits returns the limits a template runs under, by the name a
// *LimitError gives. Real chat templates stay far below every one.
func Limits() map[string]int64 {
	return map[string]int64{
		"template bytes":   MaxTemplate,             // template source
		"nesting depth":    exec.MaxNesting,         // nested blocks and brackets
		"expression depth": exec.MaxExpressionDepth, // syntax tree depth, with operator and attribute chains
		"output bytes":     MaxOutput,               // the rendered prompt
		"string bytes":     exec.MaxStringBytes,     // any one string a template builds
		"list length":      exec.MaxListLen,         // any one list or dict a template builds
		"integer argument": exec.MaxIntArgument,     // widths and counts given to filters and methods
		"loop iterations":  exec.MaxLoopIterations,  // for-loop iterations of a render
		"call depth":       exec.MaxCallDepth,       // nested macro calls and loop(...) recursion
		"value depth":      exec.MaxValueDepth,      // nesting of a list or dict printed, compared or copied
		"value size":       exec.MaxValueNodes,      // elements one print, comparison or copy visits
		"render steps":     exec.MaxRenderSteps,     // work of a render
		"render bytes":     exec.MaxRenderBytes,     // bytes of strings and lists a render builds in all
	}
}

// asLimit turns gonja's limit error into the package's.
func asLimit(err error) (*LimitError, bool) {
	var le *exec.LimitError
	if !errors.As(err, &le) {
		return nil, false
	}
	return &LimitError{Limit: le.Limit, Max: le.Max, Got: le.Got}, true
}

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
