package gguf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// readArray reads an array's element type, count and elements. Counts are
// checked against the remaining bytes (count × minimum element size)
// before the element slice is allocated.
func readArray(b *breader, depth int, field string) (Value, error) {
	at := b.off()
	if depth > MaxNesting {
		return Value{}, ferr(at, field, fmt.Errorf("%w: depth %d > %d", ErrNesting, depth, MaxNesting))
	}
	// Field names are concatenated only on error (see relabel).
	et, err := b.u32(field)
	if err != nil {
		return Value{}, suffix(err, ".elem_type")
	}
	elem := ValueType(et)
	if !elem.valid() {
		return Value{}, ferr(at, field+".elem_type", fmt.Errorf("%w: %d", ErrValueType, et))
	}
	n, err := b.count(elem.size(), field)
	if err != nil {
		return Value{}, suffix(err, ".count")
	}
	var v any
	le := binary.LittleEndian
	switch elem {
	case ValueUint8:
		v, err = readNums(b, n, 1, func(p []byte) uint8 { return p[0] }, field)
	case ValueInt8:
		v, err = readNums(b, n, 1, func(p []byte) int8 { return int8(p[0]) }, field)
	case ValueBool:
		v, err = readNums(b, n, 1, func(p []byte) bool { return p[0] != 0 }, field)
	case ValueUint16:
		v, err = readNums(b, n, 2, le.Uint16, field)
	case ValueInt16:
		v, err = readNums(b, n, 2, func(p []byte) int16 { return int16(le.Uint16(p)) }, field)
	case ValueUint32:
		v, err = readNums(b, n, 4, le.Uint32, field)
	case ValueInt32:
		v, err = readNums(b, n, 4, func(p []byte) int32 { return int32(le.Uint32(p)) }, field)
	case ValueFloat32:
		v, err = readNums(b, n, 4, func(p []byte) float32 { return math.Float32frombits(le.Uint32(p)) }, field)
	case ValueUint64:
		v, err = readNums(b, n, 8, le.Uint64, field)
	case ValueInt64:
		v, err = readNums(b, n, 8, func(p []byte) int64 { return int64(le.Uint64(p)) }, field)
	case ValueFloat64:
		v, err = readNums(b, n, 8, func(p []byte) float64 { return math.Float64frombits(le.Uint64(p)) }, field)
	case ValueString:
		v, err = readStrings(b, n, field)
	case ValueArray:
		out := make([]Value, n)
		for i := range out {
			if out[i], err = readArray(b, depth+1, field); err != nil {
				return Value{}, relabel(err, field, i)
			}
		}
		v = out
	}
	if err != nil {
		return Value{}, err
	}
	return Value{Type: ValueArray, Elem: elem, V: v}, nil
}

// readNums decodes n fixed-size elements, a buffer's worth at a time.
func readNums[T any](b *breader, n, size int, dec func([]byte) T, field string) ([]T, error) {
	out := make([]T, n)
	for i := 0; i < n; {
		k := min(n-i, max(1, len(b.buf)/size))
		p, err := b.bytes(k*size, field)
		if err != nil {
			return nil, relabel(err, field, i)
		}
		for j := 0; j < k; j++ {
			out[i+j] = dec(p[j*size:])
		}
		i += k
	}
	return out, nil
}

// relabel inserts the index of the array element an error occurred in
// after the array's field name (so nested arrays read a[2][5].count).
// Element names are built only on error: building one per element would
// cost a big vocabulary, or an array of a million empty arrays, an
// allocation each.
func relabel(err error, field string, i int) error {
	var fe *FormatError
	if errors.As(err, &fe) && strings.HasPrefix(fe.Field, field) {
		fe.Field = fmt.Sprintf("%s[%d]%s", field, i, fe.Field[len(field):])
	}
	return err
}

// readStrings reads n strings into one backing string: a 150k-token
// vocabulary then costs a few allocations instead of 150k.
func readStrings(b *breader, n int, field string) ([]string, error) {
	ends := make([]int, n)
	var arena []byte
	var err error
	for i := range ends {
		if arena, err = b.appendStr(arena, field); err != nil {
			return nil, relabel(err, field, i)
		}
		ends[i] = len(arena)
	}
	all := string(arena)
	out := make([]string, n)
	start := 0
	for i, end := range ends {
		out[i] = all[start:end]
		start = end
	}
	return out, nil
}

// prefix prepends to the field name of a FormatError: readers pass ""
// or a relative name (".type") and their caller names the field on error.
func prefix(err error, s string) error {
	var fe *FormatError
	if errors.As(err, &fe) {
		fe.Field = s + fe.Field
	}
	return err
}

// quoteName quotes a key or tensor name for an error's field name, cut to
// its first 64 bytes: a hostile 64 KiB name would make a useless message
// and cost more to quote than the rest of the parse.
func quoteName(s string) string {
	if len(s) <= 64 {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:64]) + "…"
}

// suffix appends to the field name of a FormatError.
func suffix(err error, s string) error {
	var fe *FormatError
	if errors.As(err, &fe) {
		fe.Field += s
	}
	return err
}
