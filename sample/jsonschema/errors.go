package jsonschema

import "fmt"

// UnsupportedError is a keyword of the schema that the converter does not
// turn into grammar rules (llama.cpp ignores it silently, so its output
// could break the constraint). Pointer is the keyword's JSON pointer in the
// schema (RFC 6901; references are followed, so it may point into $defs).
type UnsupportedError struct {
	Pointer string
	Keyword string
	Reason  string // why, when it is not plain absence of support
}

// Error implements error.
func (e *UnsupportedError) Error() string {
	msg := fmt.Sprintf("jsonschema: %s: keyword %q is not supported", pointerText(e.Pointer), e.Keyword)
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

// SchemaError is a document that is not a schema the converter can read:
// invalid JSON, a keyword with a value of the wrong type, an unknown type,
// an unresolvable $ref, a pattern that does not convert.
type SchemaError struct {
	Pointer string
	Msg     string
}

// Error implements error.
func (e *SchemaError) Error() string {
	return fmt.Sprintf("jsonschema: %s: %s", pointerText(e.Pointer), e.Msg)
}

func pointerText(p string) string {
	if p == "" {
		return "(root)"
	}
	return p
}
