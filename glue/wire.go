package glue

import "strconv"

// Frame layout (all integers little-endian):
//
//	offset size field
//	0      4    magic "GLUE"
//	4      2    version (Version)
//	6      1    kind (Kind)
//	7      1    flags (reserved, written 0, ignored on read)
//	8      4    message type id
//	12     4    request id
//	16     4    total frame length in bytes, header included
//	20     ...  fields
//
// Each field is a 4-byte field header followed by its payload:
//
//	0 2 field id, 2 1 wire type, 3 1 reserved (0)
//
// Payloads: bool 1 byte; i32/u32/f32 4 bytes; i64/f64 8 bytes; string and
// bytes: u32 length, zero padding up to an 8-byte boundary of the frame, then
// the bytes; arrays: u32 count, padding to 8, then the elements (strings and
// byte strings in arrays are each a u32 length followed by bytes, unpadded;
// bools are 1 byte each). The padding lets a JavaScript decoder view f32/f64/i64
// arrays in place instead of copying them.
//
// Every wire type's payload length is computable from the payload itself, so a
// decoder skips fields whose id it does not know: that is what lets a newer
// peer add optional fields without breaking an older one.

// Magic is the first four bytes of every frame.
const Magic = "GLUE"

// Version is the wire format version. It changes only for incompatible changes
// of the frame layout; new messages and new optional fields do not bump it.
const Version = 1

// HeaderSize is the size in bytes of the fixed frame header.
const HeaderSize = 20

// Kind says what role a frame plays in the request/response protocol.
type Kind uint8

// Frame kinds.
const (
	// KindRequest starts a call; the id is chosen by the caller and unique among its calls in flight.
	KindRequest Kind = 1
	// KindResponse ends a call successfully.
	KindResponse Kind = 2
	// KindEvent is a server-push message (progress, tokens, logs) belonging to the call with the same id, or to no call when the id is 0.
	KindEvent Kind = 3
	// KindError ends a call with an Error message; with id 0 it reports a protocol error not tied to a call.
	KindError Kind = 4
	// KindCancel asks the peer to cancel the call with the same id; its message is Cancel.
	KindCancel Kind = 5
)

// String names the kind for errors and logs.
func (k Kind) String() string {
	switch k {
	case KindRequest:
		return "request"
	case KindResponse:
		return "response"
	case KindEvent:
		return "event"
	case KindError:
		return "error"
	case KindCancel:
		return "cancel"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

func (k Kind) valid() bool { return k >= KindRequest && k <= KindCancel }

// WireType is the encoding of one field's payload.
type WireType uint8

// Wire types. An array of T is T|ArrayBit.
const (
	WireBool   WireType = 1
	WireI32    WireType = 2
	WireU32    WireType = 3
	WireI64    WireType = 4
	WireF32    WireType = 5
	WireF64    WireType = 6
	WireString WireType = 7
	WireBytes  WireType = 8
	// ArrayBit marks an array of the element wire type in the low bits.
	ArrayBit WireType = 0x80
)

// Elem returns the element wire type of an array type, or t itself.
func (t WireType) Elem() WireType { return t &^ ArrayBit }

// IsArray reports whether t is an array wire type.
func (t WireType) IsArray() bool { return t&ArrayBit != 0 }

// Valid reports whether t is a wire type this version knows how to skip.
func (t WireType) Valid() bool {
	e := t.Elem()
	return e >= WireBool && e <= WireBytes && t&^(ArrayBit|0x0f) == 0
}

// fixedSize is the byte size of a fixed-width element, or 0 for strings and bytes.
func (t WireType) fixedSize() int {
	switch t.Elem() {
	case WireBool:
		return 1
	case WireI32, WireU32, WireF32:
		return 4
	case WireI64, WireF64:
		return 8
	}
	return 0
}

// String names the wire type as the schema and errors spell it.
func (t WireType) String() string {
	names := [...]string{"", "bool", "i32", "u32", "i64", "f32", "f64", "string", "bytes"}
	e := t.Elem()
	if int(e) >= len(names) || e == 0 || !t.Valid() {
		return "wire(" + strconv.Itoa(int(t)) + ")"
	}
	if t.IsArray() {
		return names[e] + "[]"
	}
	return names[e]
}

// pad8 returns the number of zero bytes that bring off to a multiple of 8.
func pad8(off int) int { return (8 - off&7) & 7 }

func itoa(v int) string    { return strconv.Itoa(v) }
func utoa(v uint64) string { return strconv.FormatUint(v, 10) }
