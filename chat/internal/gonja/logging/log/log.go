// Package log stands in for the subset of logrus gonja calls (webgguf
// patch): gonja only traces its parser and reports internal misuse, and
// logrus with its dependencies costs the browser build for no use. Tracing is
// dropped; Panic still panics.
package log

import "fmt"

// Fields are structured log fields.
type Fields map[string]any

// Entry is a log entry with fields; its methods discard the message.
type Entry struct{}

// WithFields returns an entry that discards what it is given.
func WithFields(Fields) Entry { return Entry{} }

// Trace discards a trace message.
func (Entry) Trace(...any) {}

// Trace discards a trace message.
func Trace(...any) {}

// Errorf discards an internal error report; gonja returns the error as a
// value as well.
func Errorf(string, ...any) {}

// Panic panics with the message, as logrus.Panic does.
func Panic(args ...any) { panic(fmt.Sprint(args...)) }
