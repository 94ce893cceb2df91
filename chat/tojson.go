package chat

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/webgguf/webgguf/chat/internal/gonja/exec"
)

// filterToJSON replaces gonja's tojson, which writes compact Go JSON with
// sorted keys and HTML escapes. Chat templates were written against
// transformers' tojson, i.e. Python's json.dumps(ensure_ascii=False):
// separators ", " and ": " (",", ": " when indenting), key order kept,
// non-ASCII written as is. @huggingface/jinja and llama.cpp copy that.
func filterToJSON(_ *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	indent := -1
	if v, ok := params.KwArgs["indent"]; ok && !v.IsNil() {
		if !v.IsInteger() {
			return exec.AsValue(fmt.Errorf("tojson: indent must be an integer, got %s", v.String()))
		}
		indent = v.Integer()
	} else if len(params.Args) > 0 && params.Args[0].IsInteger() {
		indent = params.Args[0].Integer()
	}
	if indent > 64 {
		indent = 64 // more is never meant and only costs memory
	}
	var sb strings.Builder
	if err := writeJSON(&sb, in.Interface(), indent, 0); err != nil {
		return exec.AsValue(err)
	}
	return exec.AsSafeValue(sb.String())
}

// writeJSON writes v. The text is checked against exec.MaxStringBytes
// before each string and element is written: a list of a hundred 16 MB
// strings would otherwise become a 1.6 GB string.
func writeJSON(sb *strings.Builder, v any, indent, depth int) error {
	if depth > maxValueDepth {
		return fmt.Errorf("tojson: value nested deeper than %d levels", maxValueDepth)
	}
	exec.CheckString(sb.Len() + 32) // room for a number or a bracket
	switch t := v.(type) {
	case nil:
		sb.WriteString("null")
		return nil
	case *exec.Value:
		if t == nil {
			sb.WriteString("null")
			return nil
		}
		return writeJSON(sb, t.Interface(), indent, depth)
	case exec.Dict:
		return writeObject(sb, len(t.Pairs), func(i int) (string, any) { return t.Pairs[i].Key.String(), t.Pairs[i].Value }, indent, depth)
	case *exec.Dict:
		return writeJSON(sb, *t, indent, depth)
	case string:
		writeJSONString(sb, t)
		return nil
	case bool:
		sb.WriteString(strconv.FormatBool(t))
		return nil
	case float64:
		sb.WriteString(pyFloat(t))
		return nil
	case float32:
		sb.WriteString(pyFloat(float64(t)))
		return nil
	case error:
		return t
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		sb.WriteString(strconv.FormatInt(rv.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		sb.WriteString(strconv.FormatUint(rv.Uint(), 10))
	case reflect.Slice, reflect.Array:
		n := rv.Len()
		sb.WriteByte('[')
		for i := 0; i < n; i++ {
			if i > 0 {
				sb.WriteByte(',')
				if indent < 0 {
					sb.WriteByte(' ')
				}
			}
			newline(sb, indent, depth+1)
			if err := writeJSON(sb, rv.Index(i).Interface(), indent, depth+1); err != nil {
				return err
			}
		}
		if n > 0 {
			newline(sb, indent, depth)
		}
		sb.WriteByte(']')
	case reflect.Map:
		// Maps come from gonja itself (namespace(), dict literals in some
		// paths): no order exists, so keys go sorted like Python's sort_keys.
		keys := rv.MapKeys()
		names := make([]string, len(keys))
		for i, k := range keys {
			names[i] = fmt.Sprint(k.Interface())
		}
		idx := make([]int, len(keys))
		for i := range idx {
			idx[i] = i
		}
		sort.Slice(idx, func(a, b int) bool { return names[idx[a]] < names[idx[b]] })
		return writeObject(sb, len(keys), func(i int) (string, any) {
			return names[idx[i]], rv.MapIndex(keys[idx[i]]).Interface()
		}, indent, depth)
	default:
		return fmt.Errorf("tojson: cannot encode %T", v)
	}
	return nil
}

func writeObject(sb *strings.Builder, n int, at func(int) (string, any), indent, depth int) error {
	sb.WriteByte('{')
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteByte(',')
			if indent < 0 {
				sb.WriteByte(' ')
			}
		}
		newline(sb, indent, depth+1)
		k, v := at(i)
		writeJSONString(sb, k)
		sb.WriteString(": ")
		if err := writeJSON(sb, v, indent, depth+1); err != nil {
			return err
		}
	}
	if n > 0 {
		newline(sb, indent, depth)
	}
	sb.WriteByte('}')
	return nil
}

func newline(sb *strings.Builder, indent, depth int) {
	if indent < 0 {
		return
	}
	exec.CheckString(sb.Len() + 1 + indent*depth)
	sb.WriteByte('\n')
	sb.WriteString(strings.Repeat(" ", indent*depth))
}

// writeJSONString escapes like json.dumps(ensure_ascii=False) and
// JSON.stringify: quote, backslash and control characters only.
func writeJSONString(sb *strings.Builder, s string) {
	exec.CheckString(sb.Len() + jsonStringLen(s))
	sb.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"':
			sb.WriteString(`\"`)
		case r == '\\':
			sb.WriteString(`\\`)
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r == '\t':
			sb.WriteString(`\t`)
		case r == '\b':
			sb.WriteString(`\b`)
		case r == '\f':
			sb.WriteString(`\f`)
		case r < 0x20:
			fmt.Fprintf(sb, `\u%04x`, r)
		case r == utf8.RuneError && size == 1:
			sb.WriteString(`\ufffd`)
		default:
			sb.WriteString(s[i : i+size])
		}
		i += size
	}
	sb.WriteByte('"')
}

// jsonStringLen is the length writeJSONString writes for s.
func jsonStringLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"', r == '\\', r == '\n', r == '\r', r == '\t', r == '\b', r == '\f':
			n += 2
		case r < 0x20, r == utf8.RuneError && size == 1:
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// pyFloat formats like Python's float repr: shortest round-trip digits,
// positional between 1e-4 and 1e16 with at least one decimal, else exponent.
func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if exp < -4 || exp >= 16 {
		return e
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}
