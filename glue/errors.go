package glue

import (
	"errors"
	"fmt"
)

// ErrorCode classifies a DecodeError or EncodeError; the same codes are used
// by the JavaScript codec, so a test on either side can match on them.
type ErrorCode string

// Decode and encode error codes.
const (
	// ErrTruncated: a header, field header, length or payload runs past the end of the frame.
	ErrTruncated ErrorCode = "truncated"
	// ErrBadMagic: the frame does not start with "GLUE".
	ErrBadMagic ErrorCode = "bad_magic"
	// ErrVersion: the frame's version is not Version.
	ErrVersion ErrorCode = "version"
	// ErrKind: the frame kind is not one of the Kind constants.
	ErrKind ErrorCode = "kind"
	// ErrLength: the header's total length is smaller than the header or larger than the buffer.
	ErrLength ErrorCode = "length"
	// ErrUnknownType: the message type id is not in the schema.
	ErrUnknownType ErrorCode = "unknown_type"
	// ErrWireType: a field's wire type is unknown, or differs from the schema's type for that field id.
	ErrWireType ErrorCode = "wire_type"
	// ErrDuplicate: a field id occurs twice in one frame.
	ErrDuplicate ErrorCode = "duplicate_field"
	// ErrUTF8: a string is not valid UTF-8.
	ErrUTF8 ErrorCode = "utf8"
	// ErrTooLarge: a value does not fit the wire format (a length over 2^32-1).
	ErrTooLarge ErrorCode = "too_large"
	// ErrNotMessage: a Go value passed to Encode is not a registered message.
	ErrNotMessage ErrorCode = "not_message"
)

// DecodeError reports why a frame was rejected and where. Field is the
// schema name of the field being read ("" for the header or an unknown field)
// and Offset the byte offset in the frame where the problem was found.
type DecodeError struct {
	Code    ErrorCode
	Message string // message type name, "" before the type id is known
	Field   string
	Offset  int
	Detail  string
}

// Error formats the error with its code, message/field and offset.
func (e *DecodeError) Error() string {
	where := ""
	switch {
	case e.Message != "" && e.Field != "":
		where = " in " + e.Message + "." + e.Field
	case e.Message != "":
		where = " in " + e.Message
	case e.Field != "":
		where = " in " + e.Field
	}
	return fmt.Sprintf("glue: decode %s%s at byte %d: %s", e.Code, where, e.Offset, e.Detail)
}

// GlueKind lets the worker forward the error code as the error kind.
func (e *DecodeError) GlueKind() string { return "decode." + string(e.Code) }

// IsCode reports whether err is a DecodeError or EncodeError with the given code.
func IsCode(err error, code ErrorCode) bool {
	var d *DecodeError
	if errors.As(err, &d) {
		return d.Code == code
	}
	var e *EncodeError
	if errors.As(err, &e) {
		return e.Code == code
	}
	return false
}

// EncodeError reports a Go value that cannot be encoded.
type EncodeError struct {
	Code   ErrorCode
	Field  string
	Detail string
}

// Error formats the error with its code and field.
func (e *EncodeError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("glue: encode %s in %s: %s", e.Code, e.Field, e.Detail)
	}
	return fmt.Sprintf("glue: encode %s: %s", e.Code, e.Detail)
}
