package glue

import (
	"encoding/binary"
	"math"
	"reflect"
	"unicode/utf8"
)

// Header is the fixed part of a frame.
type Header struct {
	Version uint16
	Kind    Kind
	Flags   uint8
	Type    uint32
	ID      uint32
	Length  uint32 // total frame length, header included
}

// DecodeHeader reads and checks the fixed header of the frame at the start
// of b: magic, version, kind, and a total length that fits in b. Bytes of b
// past the frame's length are not part of it (pooled buffers are larger than
// their frames).
func DecodeHeader(b []byte) (Header, error) {
	if len(b) < HeaderSize {
		return Header{}, &DecodeError{Code: ErrTruncated, Field: "header", Offset: len(b), Detail: "frame shorter than the 20-byte header"}
	}
	if string(b[:4]) != Magic {
		return Header{}, &DecodeError{Code: ErrBadMagic, Field: "magic", Offset: 0, Detail: "frame does not start with GLUE"}
	}
	le := binary.LittleEndian
	h := Header{
		Version: le.Uint16(b[4:]),
		Kind:    Kind(b[6]),
		Flags:   b[7],
		Type:    le.Uint32(b[8:]),
		ID:      le.Uint32(b[12:]),
		Length:  le.Uint32(b[16:]),
	}
	if h.Version != Version {
		return h, &DecodeError{Code: ErrVersion, Field: "version", Offset: 4, Detail: "version " + itoa(int(h.Version)) + ", want " + itoa(Version)}
	}
	if !h.Kind.valid() {
		return h, &DecodeError{Code: ErrKind, Field: "kind", Offset: 6, Detail: "unknown " + h.Kind.String()}
	}
	if h.Length < HeaderSize || uint64(h.Length) > uint64(len(b)) {
		return h, &DecodeError{Code: ErrLength, Field: "length", Offset: 16, Detail: "total length " + itoa(int(h.Length)) + " outside [20, " + itoa(len(b)) + "]"}
	}
	return h, nil
}

// Decode reads one frame from the start of b and returns its header and a
// pointer to a new message of the registered type. Raw byte fields ([]byte,
// [][]byte) alias b: the caller must not overwrite b while the message is in
// use. Every length is checked against the frame; allocations are bounded by
// the frame's size.
func Decode(b []byte) (Header, any, error) {
	h, err := DecodeHeader(b)
	if err != nil {
		return h, nil, err
	}
	info, ok := byID[h.Type]
	if !ok {
		return h, nil, &DecodeError{Code: ErrUnknownType, Field: "type", Offset: 8, Detail: "type id " + itoa(int(h.Type)) + " is not in the schema"}
	}
	p := reflect.New(info.typ)
	if err := decodeFields(b[:h.Length], info, p.Elem()); err != nil {
		return h, nil, err
	}
	return h, p.Interface(), nil
}

// DecodeAs decodes a frame that must carry a message of msg's type into msg
// (a pointer to a registered struct), for a receiver that knows what to expect.
func DecodeAs(b []byte, msg any) (Header, error) {
	v := reflect.ValueOf(msg)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return Header{}, &EncodeError{Code: ErrNotMessage, Detail: "DecodeAs needs a non-nil pointer"}
	}
	info, ok := byType[v.Elem().Type()]
	if !ok {
		return Header{}, &EncodeError{Code: ErrNotMessage, Detail: v.Type().String() + " is not in the schema"}
	}
	h, err := DecodeHeader(b)
	if err != nil {
		return h, err
	}
	if h.Type != info.ID {
		return h, &DecodeError{Code: ErrUnknownType, Field: "type", Offset: 8, Detail: "got " + TypeName(h.Type) + ", want " + info.Name}
	}
	v.Elem().SetZero()
	return h, decodeFields(b[:h.Length], info, v.Elem())
}

// reader walks the fields of one frame; off is the next unread byte.
type reader struct {
	b    []byte
	off  int
	msg  string
	name string // field being read, for errors
}

func (r *reader) fail(code ErrorCode, at int, detail string) error {
	return &DecodeError{Code: code, Message: r.msg, Field: r.name, Offset: at, Detail: detail}
}

// need checks that n more bytes are in the frame.
func (r *reader) need(n uint64, what string) error {
	if n > uint64(len(r.b)-r.off) {
		return r.fail(ErrTruncated, r.off, what+" needs "+utoa(n)+" bytes, "+itoa(len(r.b)-r.off)+" left")
	}
	return nil
}

func (r *reader) u32() uint32 {
	v := binary.LittleEndian.Uint32(r.b[r.off:])
	r.off += 4
	return v
}

// lenPad reads a u32 count or length followed by padding to 8, and checks
// that count elements of at least elem bytes each fit in the rest.
func (r *reader) lenPad(elem uint64, what string) (int, error) {
	if err := r.need(4, what+" length"); err != nil {
		return 0, err
	}
	at := r.off
	n := r.u32()
	p := pad8(r.off)
	if err := r.need(uint64(p), "padding"); err != nil {
		return 0, err
	}
	r.off += p
	if uint64(n)*elem > uint64(len(r.b)-r.off) {
		return 0, r.fail(ErrTruncated, at, what+" of "+utoa(uint64(n))+" × "+utoa(elem)+" bytes overruns the frame ("+itoa(len(r.b)-r.off)+" left)")
	}
	return int(n), nil
}

// take returns the next n bytes, aliasing the frame; an empty result is nil
// so that a decoded message compares equal to the one that was encoded.
func (r *reader) take(n int) []byte {
	if n == 0 {
		return nil
	}
	s := r.b[r.off : r.off+n : r.off+n]
	r.off += n
	return s
}

func decodeFields(b []byte, info *MessageInfo, v reflect.Value) error {
	r := &reader{b: b, off: HeaderSize, msg: info.Name}
	seen := make([]bool, len(info.Fields))
	for r.off < len(b) {
		r.name = ""
		if err := r.need(4, "field header"); err != nil {
			return err
		}
		at := r.off
		id := binary.LittleEndian.Uint16(b[r.off:])
		w := WireType(b[r.off+2])
		r.off += 4
		if !w.Valid() {
			return r.fail(ErrWireType, at+2, "unknown wire type "+itoa(int(w))+" of field id "+itoa(int(id)))
		}
		idx, known := info.byID[id]
		if !known {
			if err := r.skip(w); err != nil {
				return err
			}
			continue
		}
		f := &info.Fields[idx]
		r.name = f.Name
		if f.Wire != w {
			return r.fail(ErrWireType, at+2, "wire type "+w.String()+", schema says "+f.Wire.String())
		}
		if seen[idx] {
			return r.fail(ErrDuplicate, at, "field id "+itoa(int(id))+" occurs twice")
		}
		seen[idx] = true
		if err := r.value(f.Wire, v.Field(f.index)); err != nil {
			return err
		}
	}
	return nil
}

// skip steps over the payload of a field this schema does not know.
func (r *reader) skip(w WireType) error {
	if !w.IsArray() {
		if sz := w.fixedSize(); sz > 0 {
			if err := r.need(uint64(sz), "unknown field"); err != nil {
				return err
			}
			r.off += sz
			return nil
		}
		n, err := r.lenPad(1, "unknown field")
		if err != nil {
			return err
		}
		r.off += n
		return nil
	}
	if sz := w.fixedSize(); sz > 0 {
		n, err := r.lenPad(uint64(sz), "unknown array")
		if err != nil {
			return err
		}
		r.off += n * sz
		return nil
	}
	n, err := r.lenPad(4, "unknown array")
	if err != nil {
		return err
	}
	for range n {
		if err := r.need(4, "element length"); err != nil {
			return err
		}
		m := r.u32()
		if err := r.need(uint64(m), "element"); err != nil {
			return err
		}
		r.off += int(m)
	}
	return nil
}

func (r *reader) value(w WireType, v reflect.Value) error {
	le := binary.LittleEndian
	if !w.IsArray() {
		if sz := w.fixedSize(); sz > 0 {
			if err := r.need(uint64(sz), w.String()); err != nil {
				return err
			}
			p := r.take(sz)
			switch w {
			case WireBool:
				v.SetBool(p[0] != 0)
			case WireI32:
				v.SetInt(int64(int32(le.Uint32(p))))
			case WireU32:
				v.SetUint(uint64(le.Uint32(p)))
			case WireI64:
				v.SetInt(int64(le.Uint64(p)))
			case WireF32:
				v.SetFloat(float64(math.Float32frombits(le.Uint32(p))))
			case WireF64:
				v.SetFloat(math.Float64frombits(le.Uint64(p)))
			}
			return nil
		}
		at := r.off
		n, err := r.lenPad(1, w.String())
		if err != nil {
			return err
		}
		p := r.take(n)
		if w == WireString {
			if !utf8.Valid(p) {
				return r.fail(ErrUTF8, at, "string is not valid UTF-8")
			}
			v.SetString(string(p))
		} else {
			v.SetBytes(p)
		}
		return nil
	}
	if sz := w.fixedSize(); sz > 0 {
		n, err := r.lenPad(uint64(sz), w.String())
		if err != nil {
			return err
		}
		p := r.take(n * sz)
		switch w.Elem() {
		case WireBool:
			a := make([]bool, n)
			for i := range a {
				a[i] = p[i] != 0
			}
			v.Set(reflect.ValueOf(a))
		case WireI32:
			a := make([]int32, n)
			for i := range a {
				a[i] = int32(le.Uint32(p[4*i:]))
			}
			v.Set(reflect.ValueOf(a))
		case WireU32:
			a := make([]uint32, n)
			for i := range a {
				a[i] = le.Uint32(p[4*i:])
			}
			v.Set(reflect.ValueOf(a))
		case WireI64:
			a := make([]int64, n)
			for i := range a {
				a[i] = int64(le.Uint64(p[8*i:]))
			}
			v.Set(reflect.ValueOf(a))
		case WireF32:
			a := make([]float32, n)
			for i := range a {
				a[i] = math.Float32frombits(le.Uint32(p[4*i:]))
			}
			v.Set(reflect.ValueOf(a))
		case WireF64:
			a := make([]float64, n)
			for i := range a {
				a[i] = math.Float64frombits(le.Uint64(p[8*i:]))
			}
			v.Set(reflect.ValueOf(a))
		}
		return nil
	}
	// arrays of strings or byte strings: each element is at least its 4-byte length
	n, err := r.lenPad(4, w.String())
	if err != nil {
		return err
	}
	if w.Elem() == WireString {
		a := make([]string, n)
		for i := range a {
			at := r.off
			p, err := r.element()
			if err != nil {
				return err
			}
			if !utf8.Valid(p) {
				return r.fail(ErrUTF8, at, "string "+itoa(i)+" is not valid UTF-8")
			}
			a[i] = string(p)
		}
		v.Set(reflect.ValueOf(a))
		return nil
	}
	a := make([][]byte, n)
	for i := range a {
		p, err := r.element()
		if err != nil {
			return err
		}
		a[i] = p
	}
	v.Set(reflect.ValueOf(a))
	return nil
}

func (r *reader) element() ([]byte, error) {
	if err := r.need(4, "element length"); err != nil {
		return nil, err
	}
	m := r.u32()
	if err := r.need(uint64(m), "element"); err != nil {
		return nil, err
	}
	return r.take(int(m)), nil
}
