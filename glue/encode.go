package glue

import (
	"encoding/binary"
	"math"
	"reflect"
	"strconv"
	"unicode/utf8"
)

// Encode returns a new frame of the given kind and call id carrying msg (a
// registered message struct or a pointer to one).
func Encode(kind Kind, id uint32, msg any) ([]byte, error) {
	return AppendFrame(nil, kind, id, msg)
}

// AppendFrame appends one frame to dst and returns the extended slice; dst may
// be a reused buffer (dst[:0]) so a hot sender allocates nothing. Fields at
// their zero value are omitted: decoders read a missing field as zero.
func AppendFrame(dst []byte, kind Kind, id uint32, msg any) ([]byte, error) {
	v := reflect.ValueOf(msg)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return dst, &EncodeError{Code: ErrNotMessage, Detail: "nil message"}
		}
		v = v.Elem()
	}
	info, ok := byType[v.Type()]
	if !v.IsValid() || !ok {
		return dst, &EncodeError{Code: ErrNotMessage, Detail: "type " + reflect.TypeOf(msg).String() + " is not in the schema"}
	}
	return appendMessage(dst, kind, id, info, v)
}

func appendMessage(dst []byte, kind Kind, id uint32, info *MessageInfo, v reflect.Value) ([]byte, error) {
	if !kind.valid() {
		return dst, &EncodeError{Code: ErrKind, Detail: "invalid kind " + strconv.Itoa(int(kind))}
	}
	start := len(dst)
	dst = append(dst, Magic...)
	dst = binary.LittleEndian.AppendUint16(dst, Version)
	dst = append(dst, byte(kind), 0)
	dst = binary.LittleEndian.AppendUint32(dst, info.ID)
	dst = binary.LittleEndian.AppendUint32(dst, id)
	dst = binary.LittleEndian.AppendUint32(dst, 0) // total length, patched below
	for i := range info.Fields {
		f := &info.Fields[i]
		fv := v.Field(f.index)
		if isZero(fv, f.Wire) {
			continue
		}
		var err error
		if dst, err = appendField(dst, start, f, fv); err != nil {
			err.(*EncodeError).Field = info.Name + "." + f.Name
			return dst[:start], err
		}
	}
	total := len(dst) - start
	if uint64(total) > math.MaxUint32 {
		return dst[:start], &EncodeError{Code: ErrTooLarge, Field: info.Name, Detail: "frame over 4 GiB"}
	}
	binary.LittleEndian.PutUint32(dst[start+16:], uint32(total))
	return dst, nil
}

// isZero reports whether a field is omitted. Floats are zero only as +0 so
// that -0 survives the round trip.
func isZero(v reflect.Value, w WireType) bool {
	switch {
	case w.IsArray() || w == WireBytes:
		return v.Len() == 0
	case w == WireF32 || w == WireF64:
		return math.Float64bits(v.Float()) == 0
	}
	return v.IsZero()
}

func appendField(dst []byte, start int, f *FieldInfo, v reflect.Value) ([]byte, error) {
	dst = binary.LittleEndian.AppendUint16(dst, f.ID)
	dst = append(dst, byte(f.Wire), 0)
	le := binary.LittleEndian
	switch f.Wire {
	case WireBool:
		if v.Bool() {
			return append(dst, 1), nil
		}
		return append(dst, 0), nil
	case WireI32:
		return le.AppendUint32(dst, uint32(int32(v.Int()))), nil
	case WireU32:
		return le.AppendUint32(dst, uint32(v.Uint())), nil
	case WireI64:
		return le.AppendUint64(dst, uint64(v.Int())), nil
	case WireF32:
		return le.AppendUint32(dst, math.Float32bits(float32(v.Float()))), nil
	case WireF64:
		return le.AppendUint64(dst, math.Float64bits(v.Float())), nil
	case WireString, WireBytes:
		n := v.Len()
		if uint64(n) > math.MaxUint32 {
			return dst, &EncodeError{Code: ErrTooLarge, Detail: "length over 2^32-1"}
		}
		dst = le.AppendUint32(dst, uint32(n))
		dst = appendPad(dst, start)
		if f.Wire == WireString {
			if !utf8.ValidString(v.String()) {
				return dst, &EncodeError{Code: ErrUTF8, Detail: "string is not valid UTF-8"}
			}
			return append(dst, v.String()...), nil
		}
		return append(dst, v.Bytes()...), nil
	}
	// arrays
	n := v.Len()
	if uint64(n) > math.MaxUint32 {
		return dst, &EncodeError{Code: ErrTooLarge, Detail: "count over 2^32-1"}
	}
	dst = le.AppendUint32(dst, uint32(n))
	dst = appendPad(dst, start)
	switch f.Wire.Elem() {
	case WireBool:
		for _, b := range v.Interface().([]bool) {
			if b {
				dst = append(dst, 1)
			} else {
				dst = append(dst, 0)
			}
		}
	case WireI32:
		for _, x := range v.Interface().([]int32) {
			dst = le.AppendUint32(dst, uint32(x))
		}
	case WireU32:
		for _, x := range v.Interface().([]uint32) {
			dst = le.AppendUint32(dst, x)
		}
	case WireI64:
		for _, x := range v.Interface().([]int64) {
			dst = le.AppendUint64(dst, uint64(x))
		}
	case WireF32:
		for _, x := range v.Interface().([]float32) {
			dst = le.AppendUint32(dst, math.Float32bits(x))
		}
	case WireF64:
		for _, x := range v.Interface().([]float64) {
			dst = le.AppendUint64(dst, math.Float64bits(x))
		}
	case WireString:
		for _, s := range v.Interface().([]string) {
			if uint64(len(s)) > math.MaxUint32 {
				return dst, &EncodeError{Code: ErrTooLarge, Detail: "string over 2^32-1 bytes"}
			}
			if !utf8.ValidString(s) {
				return dst, &EncodeError{Code: ErrUTF8, Detail: "string is not valid UTF-8"}
			}
			dst = le.AppendUint32(dst, uint32(len(s)))
			dst = append(dst, s...)
		}
	case WireBytes:
		for _, b := range v.Interface().([][]byte) {
			if uint64(len(b)) > math.MaxUint32 {
				return dst, &EncodeError{Code: ErrTooLarge, Detail: "bytes over 2^32-1"}
			}
			dst = le.AppendUint32(dst, uint32(len(b)))
			dst = append(dst, b...)
		}
	}
	return dst, nil
}

func appendPad(dst []byte, start int) []byte {
	for range pad8(len(dst) - start) {
		dst = append(dst, 0)
	}
	return dst
}
