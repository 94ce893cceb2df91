package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/webgguf/webgguf/gguf"
)

func init() {
	commands["inspect"] = command{
		summary: "print a GGUF file's metadata and tensors (FILE [--json])",
		run:     func(args []string) error { return inspect(args, os.Stdout) },
	}
}

// inspectArrayItems is how many array elements text mode shows.
const inspectArrayItems = 8

// inspectStringMax is the longest string text mode shows in full.
const inspectStringMax = 120

// inspect prints FILE's metadata and tensor table like llama.cpp's
// gguf-dump, or with --json one object {"metadata", "tensors"}. A split
// model is read through its first shard's name.
func inspect(args []string, stdout io.Writer) error {
	var path string
	asJSON := false
	for _, a := range args {
		switch {
		case a == "--json" || a == "-json":
			asJSON = true
		case strings.HasPrefix(a, "-"):
			return fmt.Errorf("unknown flag %s (usage: webgguf inspect FILE [--json])", a)
		case path != "":
			return errors.New("one FILE expected (usage: webgguf inspect FILE [--json])")
		default:
			path = a
		}
	}
	if path == "" {
		return errors.New("usage: webgguf inspect FILE [--json]")
	}
	f, err := gguf.OpenSplitPath(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriter(stdout)
	if asJSON {
		writeInspectJSON(w, f)
	} else {
		writeInspectText(w, f)
	}
	return w.Flush()
}

func writeInspectText(w *bufio.Writer, f *gguf.File) {
	fmt.Fprintf(w, "* GGUF v%d, alignment %d, data at byte %d", f.Version, f.Alignment, f.DataOffset)
	if f.Splits() > 1 {
		fmt.Fprintf(w, ", %d shards", f.Splits())
	}
	fmt.Fprintf(w, "\n* Dumping %d key/value pair(s)\n", len(f.KV))
	for i, kv := range f.KV {
		typ, n := kv.Value.Type.String(), 1
		if kv.Value.Type == gguf.ValueArray {
			typ, n = "["+kv.Value.Elem.String()+"]", kv.Value.Len()
		}
		fmt.Fprintf(w, "%7d: %-10s | %8d | %s = %s\n", i+1, typ, n, kv.Key, textValue(kv.Value))
	}
	fmt.Fprintf(w, "* Dumping %d tensor(s)\n", len(f.Tensors))
	for i, t := range f.Tensors {
		var dims [4]string
		for j := range dims {
			dims[j] = "1"
			if j < len(t.Ne) {
				dims[j] = strconv.FormatUint(t.Ne[j], 10)
			}
		}
		fmt.Fprintf(w, "%7d: %10d | %5s, %5s, %5s, %5s | %-7s | %10d", i+1, t.NElements(), dims[0], dims[1], dims[2], dims[3], strings.ToUpper(t.Type.String()), t.Offset)
		if f.Splits() > 1 {
			fmt.Fprintf(w, " | shard %d", t.Split+1)
		}
		fmt.Fprintf(w, " | %s\n", t.Name)
	}
}

// textValue formats a value for text mode: arrays show their first
// inspectArrayItems elements, long strings their start and length.
func textValue(v gguf.Value) string {
	if v.Type != gguf.ValueArray {
		return scalarText(v.V)
	}
	n := v.Len()
	items := make([]string, 0, min(n, inspectArrayItems)+1)
	for i := 0; i < n && i < inspectArrayItems; i++ {
		items = append(items, elemText(v, i))
	}
	if n > inspectArrayItems {
		items = append(items, fmt.Sprintf("... (%d more)", n-inspectArrayItems))
	}
	return "[" + strings.Join(items, ", ") + "]"
}

func scalarText(x any) string {
	if s, ok := x.(string); ok {
		if len(s) > inspectStringMax {
			return strconv.Quote(s[:inspectStringMax]) + fmt.Sprintf("... (%d bytes)", len(s))
		}
		return strconv.Quote(s)
	}
	return fmt.Sprint(x)
}

func elemText(v gguf.Value, i int) string {
	if nested, ok := v.V.([]gguf.Value); ok {
		return textValue(nested[i])
	}
	return scalarText(elemAt(v.V, i))
}

// elemAt returns element i of a typed slice.
func elemAt(s any, i int) any {
	switch x := s.(type) {
	case []uint8:
		return x[i]
	case []int8:
		return x[i]
	case []uint16:
		return x[i]
	case []int16:
		return x[i]
	case []uint32:
		return x[i]
	case []int32:
		return x[i]
	case []float32:
		return x[i]
	case []bool:
		return x[i]
	case []string:
		return x[i]
	case []uint64:
		return x[i]
	case []int64:
		return x[i]
	case []float64:
		return x[i]
	case []gguf.Value:
		return x[i]
	}
	return nil
}

func writeInspectJSON(w *bufio.Writer, f *gguf.File) {
	w.WriteString(`{"metadata":{`)
	for i, kv := range f.KV {
		if i > 0 {
			w.WriteByte(',')
		}
		w.Write(jsonString(kv.Key))
		w.WriteByte(':')
		w.Write(appendJSONValue(nil, kv.Value))
	}
	w.WriteString(`},"tensors":[`)
	for i, t := range f.Tensors {
		if i > 0 {
			w.WriteByte(',')
		}
		ne, _ := json.Marshal(t.Ne)
		fmt.Fprintf(w, `{"name":%s,"type":%s,"ne":%s,"offset":%d}`, jsonString(t.Name), jsonString(t.Type.String()), ne, t.Offset)
	}
	w.WriteString("]}\n")
}

func jsonString(s string) []byte {
	b, _ := json.Marshal(s) // marshaling a string cannot fail
	return b
}

// appendJSONValue encodes a metadata value; non-finite floats, which JSON
// lacks, become the strings "NaN", "+Inf" and "-Inf".
func appendJSONValue(b []byte, v gguf.Value) []byte {
	if v.Type != gguf.ValueArray {
		return appendJSONScalar(b, v.V)
	}
	b = append(b, '[')
	for i, n := 0, v.Len(); i < n; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		e := elemAt(v.V, i)
		if nested, ok := e.(gguf.Value); ok {
			b = appendJSONValue(b, nested)
		} else {
			b = appendJSONScalar(b, e)
		}
	}
	return append(b, ']')
}

func appendJSONScalar(b []byte, x any) []byte {
	switch y := x.(type) {
	case float32:
		return appendJSONFloat(b, float64(y), 32)
	case float64:
		return appendJSONFloat(b, y, 64)
	case string:
		return append(b, jsonString(y)...)
	}
	return fmt.Append(b, x) // integers and bools print as JSON literals
}

func appendJSONFloat(b []byte, x float64, bits int) []byte {
	switch {
	case math.IsNaN(x):
		return append(b, `"NaN"`...)
	case math.IsInf(x, 1):
		return append(b, `"+Inf"`...)
	case math.IsInf(x, -1):
		return append(b, `"-Inf"`...)
	}
	return strconv.AppendFloat(b, x, 'g', -1, bits)
}
