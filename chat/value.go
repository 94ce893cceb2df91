package chat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/webgguf/webgguf/chat/internal/gonja/exec"
)

// maxValueDepth bounds the nesting of values handed to a template, so that a
// hostile tool definition cannot exhaust the stack while being converted.
const maxValueDepth = 64

// normalize turns an arbitrary Go value into the values templates work with:
// strings, ints, float64s, bools, nil, []any and exec.Dict (gonja's ordered
// dictionary). It goes through JSON so that structs and json.RawMessage work,
// and decodes objects into exec.Dict so key order survives to tojson, as it
// does in Python and JavaScript. Go maps have no order: encoding/json writes
// their keys sorted, so a map's keys reach the template sorted.
func normalize(v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	out, err := decodeOrdered(d, 0)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func decodeOrdered(d *json.Decoder, depth int) (any, error) {
	if depth > maxValueDepth {
		return nil, fmt.Errorf("value nested deeper than %d levels", maxValueDepth)
	}
	tok, err := d.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			dict := exec.Dict{}
			for d.More() {
				k, err := d.Token()
				if err != nil {
					return nil, err
				}
				key, _ := k.(string)
				v, err := decodeOrdered(d, depth+1)
				if err != nil {
					return nil, err
				}
				dict.Pairs = append(dict.Pairs, &exec.Pair{Key: exec.AsValue(key), Value: exec.AsValue(v)})
			}
			if _, err := d.Token(); err != nil {
				return nil, err
			}
			return dict, nil
		case '[':
			list := []any{}
			for d.More() {
				v, err := decodeOrdered(d, depth+1)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			if _, err := d.Token(); err != nil {
				return nil, err
			}
			return list, nil
		}
		return nil, fmt.Errorf("unexpected delimiter %q", t)
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return int(i), nil
		}
		f, err := t.Float64()
		if err != nil {
			return nil, err
		}
		return f, nil
	default:
		return t, nil // string, bool or nil
	}
}

// dictOf builds an exec.Dict from alternating keys and values, keeping order.
func dictOf(kv ...any) exec.Dict {
	d := exec.Dict{Pairs: make([]*exec.Pair, 0, len(kv)/2)}
	for i := 0; i+1 < len(kv); i += 2 {
		d.Pairs = append(d.Pairs, &exec.Pair{Key: exec.AsValue(kv[i]), Value: exec.AsValue(kv[i+1])})
	}
	return d
}
