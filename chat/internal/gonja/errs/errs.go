// Package errs replaces github.com/pkg/errors in gonja's renderer (webgguf
// patch). gonja wraps an error once per enclosing expression and quoted the
// whole expression each time: an error under a chain of 500 operators
// printed the chain 500 times over, 88 GB of text for a 1 MB template.
// Here syntax nodes print as their kind and position, and every message is
// clipped to a few hundred bytes.
package errs

import (
	"errors"
	"fmt"
	"strings"

	"github.com/webgguf/webgguf/chat/internal/gonja/nodes"
)

// maxMessage bounds one message (the wrapped error's text comes on top).
const maxMessage = 300

// New returns an error with the message msg, clipped.
func New(msg string) error { return errors.New(clip(msg)) }

// Errorf formats like fmt.Sprintf, syntax nodes briefly, clipped.
func Errorf(format string, args ...any) error {
	return errors.New(clip(fmt.Sprintf(format, brief(args)...)))
}

// Wrap annotates err with msg; nil stays nil.
func Wrap(err error, msg string) error {
	if err == nil {
		return nil
	}
	return &wrapped{msg: clip(msg), cause: err}
}

// Wrapf annotates err with a formatted message; nil stays nil.
func Wrapf(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return &wrapped{msg: clip(fmt.Sprintf(format, brief(args)...)), cause: err}
}

// Is is errors.Is.
func Is(err, target error) bool { return errors.Is(err, target) }

type wrapped struct {
	msg   string
	cause error
}

func (w *wrapped) Error() string { return w.msg + ": " + w.cause.Error() }

// Unwrap returns the wrapped error.
func (w *wrapped) Unwrap() error { return w.cause }

// Cause returns the wrapped error, as pkg/errors does.
func (w *wrapped) Cause() error { return w.cause }

func clip(s string) string {
	if len(s) <= maxMessage {
		return s
	}
	return strings.ToValidUTF8(s[:maxMessage], "") + "…"
}

// brief replaces syntax nodes among args by their kind and position; a
// node's own String walks its whole subtree.
func brief(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		out[i] = a
		switch n := a.(type) {
		case *nodes.Name, *nodes.Integer, *nodes.Float, *nodes.Bool, *nodes.None:
			// short already
		case *nodes.String:
			out[i] = clip(n.String())
		case nodes.Node:
			out[i] = describe(n)
		}
	}
	return out
}

func describe(n nodes.Node) (s string) {
	kind := strings.TrimPrefix(fmt.Sprintf("%T", n), "*nodes.")
	defer func() {
		if recover() != nil { // a node without a position
			s = kind
		}
	}()
	if p := n.Position(); p != nil {
		return fmt.Sprintf("%s at line %d col %d", kind, p.Line, p.Col)
	}
	return kind
}
