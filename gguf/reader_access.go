package gguf

import "strings"

// resolve expands a leading "{arch}." to general.architecture's value.
func (f *File) resolve(key string) string {
	if rest, ok := strings.CutPrefix(key, "{arch}."); ok {
		return f.Arch() + "." + rest
	}
	return key
}

// Arch returns general.architecture ("" when absent).
func (f *File) Arch() string {
	if i, ok := f.kvIndex["general.architecture"]; ok {
		s, _ := f.KV[i].Value.Str()
		return s
	}
	return ""
}

// Value returns the value of key; a key beginning with "{arch}." is looked
// up under general.architecture, e.g. "{arch}.block_count".
func (f *File) Value(key string) (Value, bool) {
	i, ok := f.kvIndex[f.resolve(key)]
	if !ok {
		return Value{}, false
	}
	return f.KV[i].Value, true
}

// String returns a string value.
func (f *File) String(key string) (string, bool) {
	v, _ := f.Value(key)
	return v.Str()
}

// Uint returns an unsigned (or non-negative signed) integer value.
func (f *File) Uint(key string) (uint64, bool) {
	v, _ := f.Value(key)
	return v.Uint()
}

// Int returns an integer value of any integer type.
func (f *File) Int(key string) (int64, bool) {
	v, _ := f.Value(key)
	return v.Int()
}

// Float returns a float32 or float64 value as float64.
func (f *File) Float(key string) (float64, bool) {
	v, _ := f.Value(key)
	return v.Float()
}

// Bool returns a bool value.
func (f *File) Bool(key string) (bool, bool) {
	v, _ := f.Value(key)
	return v.Bool()
}

// Strings returns an array of strings (shared with the File; do not modify).
func (f *File) Strings(key string) ([]string, bool) {
	v, _ := f.Value(key)
	return v.Strings()
}

// Ints returns an array of any integer type as a fresh []int64.
func (f *File) Ints(key string) ([]int64, bool) {
	v, _ := f.Value(key)
	return v.Ints()
}

// Floats returns an array of float32 (shared with the File; do not modify)
// or float64 (converted) values.
func (f *File) Floats(key string) ([]float32, bool) {
	v, _ := f.Value(key)
	return v.Floats()
}

// Tensor returns the info of the tensor called name.
func (f *File) Tensor(name string) (*TensorInfo, bool) {
	i, ok := f.tIndex[name]
	if !ok {
		return nil, false
	}
	return &f.Tensors[i], true
}
