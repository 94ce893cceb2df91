package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
)

// kind is the JSON type of a value.
type kind uint8

const (
	kNull kind = iota
	kBool
	kNumber
	kString
	kArray
	kObject
)

// value is a parsed JSON value that keeps the order of object keys, which
// fixes the order of properties (and so the grammar), as llama.cpp's
// nlohmann::ordered_json does.
type value struct {
	kind kind
	b    bool
	num  string // the number's text as written
	s    string
	arr  []*value
	keys []string
	obj  map[string]*value
}

// get is the member key of an object, or nil.
func (v *value) get(key string) *value {
	if v == nil || v.kind != kObject {
		return nil
	}
	return v.obj[key]
}

// has reports whether an object has the member key.
func (v *value) has(key string) bool { return v.get(key) != nil }

// parseJSON reads one JSON value (and nothing after it).
func parseJSON(data []byte) (*value, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	v, err := readValue(d, 0)
	if err != nil {
		return nil, &SchemaError{Msg: "invalid JSON at byte " + strconv.FormatInt(d.InputOffset(), 10) + ": " + err.Error()}
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, &SchemaError{Msg: "invalid JSON: data after the schema at byte " + strconv.FormatInt(d.InputOffset(), 10)}
	}
	return v, nil
}

// maxDepth bounds nesting so a hostile schema cannot exhaust the stack.
const maxDepth = 256

func readValue(d *json.Decoder, depth int) (*value, error) {
	if depth > maxDepth {
		return nil, errors.New("nested too deeply")
	}
	t, err := d.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch t := t.(type) {
	case nil:
		return &value{kind: kNull}, nil
	case bool:
		return &value{kind: kBool, b: t}, nil
	case json.Number:
		return &value{kind: kNumber, num: string(t)}, nil
	case string:
		return &value{kind: kString, s: t}, nil
	case json.Delim:
		if t == '[' {
			v := &value{kind: kArray}
			for d.More() {
				e, err := readValue(d, depth+1)
				if err != nil {
					return nil, err
				}
				v.arr = append(v.arr, e)
			}
			_, err := d.Token()
			return v, err
		}
		v := &value{kind: kObject, obj: map[string]*value{}}
		for d.More() {
			kt, err := d.Token()
			if err != nil {
				return nil, err
			}
			k := kt.(string)
			e, err := readValue(d, depth+1)
			if err != nil {
				return nil, err
			}
			// A repeated key keeps its first position and its last value,
			// as nlohmann::ordered_json does.
			if _, dup := v.obj[k]; !dup {
				v.keys = append(v.keys, k)
			}
			v.obj[k] = e
		}
		_, err := d.Token()
		return v, err
	}
	return nil, errors.New("unexpected token")
}

// isInt reports whether a number is written as an integer that fits in
// int64, which is what nlohmann parses as an integer.
func (v *value) isInt() bool {
	if v.kind != kNumber || strings.ContainsAny(v.num, ".eE") {
		return false
	}
	_, err := strconv.ParseInt(v.num, 10, 64)
	return err == nil
}

// float is a number's value.
func (v *value) float() float64 {
	f, _ := strconv.ParseFloat(v.num, 64)
	return f
}

// clone is a deep copy.
func (v *value) clone() *value {
	c := *v
	if v.arr != nil {
		c.arr = make([]*value, len(v.arr))
		for i, e := range v.arr {
			c.arr[i] = e.clone()
		}
	}
	if v.obj != nil {
		c.keys = append([]string(nil), v.keys...)
		c.obj = make(map[string]*value, len(v.obj))
		for k, e := range v.obj {
			c.obj[k] = e.clone()
		}
	}
	return &c
}

// set stores an object member, appending a new key at the end.
func (v *value) set(key string, e *value) {
	if _, ok := v.obj[key]; !ok {
		v.keys = append(v.keys, key)
	}
	v.obj[key] = e
}

// del removes an object member.
func (v *value) del(key string) {
	if _, ok := v.obj[key]; !ok {
		return
	}
	delete(v.obj, key)
	for i, k := range v.keys {
		if k == key {
			v.keys = append(v.keys[:i:i], v.keys[i+1:]...)
			break
		}
	}
}

// dump writes the value compactly as nlohmann's dump() does: no spaces,
// control characters escaped, other characters as they are, integers as
// written and other numbers in their shortest round-trip form.
func (v *value) dump(b *strings.Builder) {
	switch v.kind {
	case kNull:
		b.WriteString("null")
	case kBool:
		b.WriteString(strconv.FormatBool(v.b))
	case kNumber:
		if v.isInt() {
			n, _ := strconv.ParseInt(v.num, 10, 64)
			b.WriteString(strconv.FormatInt(n, 10))
		} else {
			b.WriteString(formatFloat(v.float()))
		}
	case kString:
		dumpString(b, v.s)
	case kArray:
		b.WriteByte('[')
		for i, e := range v.arr {
			if i > 0 {
				b.WriteByte(',')
			}
			e.dump(b)
		}
		b.WriteByte(']')
	case kObject:
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			dumpString(b, k)
			b.WriteByte(':')
			v.obj[k].dump(b)
		}
		b.WriteByte('}')
	}
}

func (v *value) String() string {
	var b strings.Builder
	v.dump(&b)
	return b.String()
}

func dumpString(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&15])
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}

// formatFloat follows nlohmann's number formatting: shortest digits, fixed
// notation for decimal exponents in [-4, 15) with a ".0" on whole numbers,
// else d.ddde+NN.
func formatFloat(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "null"
	}
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	k := len(digits)
	n := x + 1 // position of the decimal point after the first n digits
	switch {
	case k <= n && n <= 15:
		return sign + digits + strings.Repeat("0", n-k) + ".0"
	case 0 < n && n <= 15:
		return sign + digits[:n] + "." + digits[n:]
	case -4 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	m := digits[:1]
	if k > 1 {
		m += "." + digits[1:]
	}
	es := "+"
	if n-1 < 0 {
		es = "-"
	}
	ev := n - 1
	if ev < 0 {
		ev = -ev
	}
	evs := strconv.Itoa(ev)
	if len(evs) < 2 {
		evs = "0" + evs
	}
	return sign + m + "e" + es + evs
}
