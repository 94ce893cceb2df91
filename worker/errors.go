package worker

import (
	"context"
	"errors"

	"github.com/webgguf/webgguf/glue"
)

// ErrCallDone is returned by Stream.Send after the handler has returned.
var ErrCallDone = errors.New("worker: call already finished")

// Error is an error with a kind the page can match on; Cause, if any, is
// sent along as the error's cause.
type Error struct {
	Kind  string
	Msg   string
	Cause error
}

// NewError returns an *Error of the given kind wrapping cause (may be nil).
func NewError(kind, msg string, cause error) *Error {
	return &Error{Kind: kind, Msg: msg, Cause: cause}
}

// Error returns the message, followed by the cause's.
func (e *Error) Error() string {
	if e.Cause != nil {
		return e.Msg + ": " + e.Cause.Error()
	}
	return e.Msg
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// GlueKind returns the kind sent to the page.
func (e *Error) GlueKind() string { return e.Kind }

// kinder is implemented by errors that name their kind (Error, glue.DecodeError).
type kinder interface{ GlueKind() string }

// KindOf returns the kind an error is reported with: the first GlueKind() in
// its chain, "canceled" or "deadline" for context errors, else "internal".
func KindOf(err error) string {
	var k kinder
	switch {
	case errors.As(err, &k):
		return k.GlueKind()
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline"
	}
	return "internal"
}

// httpStatuser is implemented by errors of a failed HTTP request
// (opfs.Error): their status travels in glue.Error.Status.
type httpStatuser interface{ HTTPStatus() int }

// StatusOf returns the HTTP status of the first error in err's chain that
// has one (HTTPStatus() > 0), or 0.
func StatusOf(err error) int {
	for _, e := range chain(err) {
		if s, ok := e.(httpStatuser); ok && s.HTTPStatus() > 0 {
			return s.HTTPStatus()
		}
	}
	return 0
}

// chain lists err and every error it wraps, depth first (errors.Join
// included).
func chain(err error) []error {
	if err == nil {
		return nil
	}
	out := []error{err}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		out = append(out, chain(u.Unwrap())...)
	case interface{ Unwrap() []error }:
		for _, c := range u.Unwrap() {
			out = append(out, chain(c)...)
		}
	}
	return out
}

// wireError turns an error into the glue.Error the page receives.
func wireError(err error) *glue.Error {
	e := &glue.Error{Kind: KindOf(err), Message: err.Error(), Status: uint32(max(StatusOf(err), 0))}
	var own *Error
	if errors.As(err, &own) && own.Kind == e.Kind {
		e.Message = own.Msg // the cause travels separately
		if own.Cause == nil {
			return e
		}
		e.Cause, e.CauseKind = own.Cause.Error(), KindOf(own.Cause)
		return e
	}
	if c := errors.Unwrap(err); c != nil {
		e.Cause, e.CauseKind = c.Error(), KindOf(c)
	}
	return e
}
