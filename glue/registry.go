package glue

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// MessageInfo describes one message type of the schema.
type MessageInfo struct {
	ID     uint32
	Name   string // Go type name, also the JavaScript name
	Fields []FieldInfo
	// Test marks a test or diagnostics message (testmessages.go): absent
	// from the release engine and from the release JavaScript codec.
	Test bool
	typ  reflect.Type
	byID map[uint16]int // field id → index in Fields
}

// FieldInfo describes one field of a message.
type FieldInfo struct {
	ID     uint16
	Name   string // Go field name
	JSName string // lowerCamel name used by the JavaScript codec
	Wire   WireType
	index  int // struct field index
}

var (
	byID   = map[uint32]*MessageInfo{}
	byType = map[reflect.Type]*MessageInfo{}
)

func init() { register(messages, false) }

// register adds list to the schema; test marks the test messages.
func register(list []any, test bool) {
	for _, m := range list {
		info, err := describe(reflect.TypeOf(m))
		if err != nil {
			panic(err) // the schema is code: a bad tag is a programmer error caught by any test
		}
		if prev, dup := byID[info.ID]; dup {
			panic(fmt.Sprintf("glue: type id %d used by %s and %s", info.ID, prev.Name, info.Name))
		}
		info.Test = test
		byID[info.ID] = info
		byType[info.typ] = info
	}
}

// Schema returns every registered message, ordered by type id.
func Schema() []MessageInfo {
	out := make([]MessageInfo, 0, len(byID))
	for _, m := range byID {
		out = append(out, *m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// TypeID returns the type id of a registered message (a struct value or a
// pointer to one).
func TypeID(msg any) (uint32, bool) {
	t := reflect.TypeOf(msg)
	if t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	m, ok := byType[t]
	if !ok {
		return 0, false
	}
	return m.ID, true
}

// TypeName returns the name of a registered type id, or "type(N)".
func TypeName(id uint32) string {
	if m, ok := byID[id]; ok {
		return m.Name
	}
	return "type(" + strconv.FormatUint(uint64(id), 10) + ")"
}

// New returns a pointer to a new zero message of the given type id.
func New(id uint32) (any, bool) {
	m, ok := byID[id]
	if !ok {
		return nil, false
	}
	return reflect.New(m.typ).Interface(), true
}

var wireOf = map[reflect.Type]WireType{
	reflect.TypeFor[bool]():      WireBool,
	reflect.TypeFor[int32]():     WireI32,
	reflect.TypeFor[uint32]():    WireU32,
	reflect.TypeFor[int64]():     WireI64,
	reflect.TypeFor[float32]():   WireF32,
	reflect.TypeFor[float64]():   WireF64,
	reflect.TypeFor[string]():    WireString,
	reflect.TypeFor[[]byte]():    WireBytes,
	reflect.TypeFor[[]bool]():    WireBool | ArrayBit,
	reflect.TypeFor[[]int32]():   WireI32 | ArrayBit,
	reflect.TypeFor[[]uint32]():  WireU32 | ArrayBit,
	reflect.TypeFor[[]int64]():   WireI64 | ArrayBit,
	reflect.TypeFor[[]float32](): WireF32 | ArrayBit,
	reflect.TypeFor[[]float64](): WireF64 | ArrayBit,
	reflect.TypeFor[[]string]():  WireString | ArrayBit,
	reflect.TypeFor[[][]byte]():  WireBytes | ArrayBit,
}

func describe(t reflect.Type) (*MessageInfo, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("glue: %v is not a struct", t)
	}
	info := &MessageInfo{Name: t.Name(), typ: t, byID: map[uint16]int{}}
	haveID := false
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, ok := f.Tag.Lookup("glue")
		if f.Name == "_" {
			v, found := strings.CutPrefix(tag, "type=")
			id, err := strconv.ParseUint(v, 10, 32)
			if !ok || !found || err != nil || id == 0 {
				return nil, fmt.Errorf("glue: %s: blank field needs tag glue:\"type=N\" with N > 0", t.Name())
			}
			info.ID, haveID = uint32(id), true
			continue
		}
		if !ok {
			return nil, fmt.Errorf("glue: %s.%s has no glue tag", t.Name(), f.Name)
		}
		id, err := strconv.ParseUint(tag, 10, 16)
		if err != nil || id == 0 {
			return nil, fmt.Errorf("glue: %s.%s: tag %q is not a field id in 1..65535", t.Name(), f.Name, tag)
		}
		w, ok := wireOf[f.Type]
		if !ok {
			return nil, fmt.Errorf("glue: %s.%s: type %v has no wire type", t.Name(), f.Name, f.Type)
		}
		if _, dup := info.byID[uint16(id)]; dup {
			return nil, fmt.Errorf("glue: %s: field id %d used twice", t.Name(), id)
		}
		info.byID[uint16(id)] = len(info.Fields)
		info.Fields = append(info.Fields, FieldInfo{ID: uint16(id), Name: f.Name, JSName: lowerCamel(f.Name), Wire: w, index: i})
	}
	if !haveID {
		return nil, fmt.Errorf("glue: %s has no type id (blank field with glue:\"type=N\")", t.Name())
	}
	return info, nil
}

// lowerCamel turns a Go field name into a JavaScript one: "Data" → "data",
// "ID" → "id", "URLPath" → "urlPath", "F32s" → "f32s".
func lowerCamel(s string) string {
	r := []rune(s)
	n := 0
	for n < len(r) && unicode.IsUpper(r[n]) {
		n++
	}
	switch {
	case n == 0:
		return s
	case n == 1 || n == len(r):
		// a single capital, or all capitals
	case unicode.IsLower(r[n]):
		n-- // keep the capital that starts the next word
	}
	for i := 0; i < n; i++ {
		r[i] = unicode.ToLower(r[i])
	}
	return string(r)
}
