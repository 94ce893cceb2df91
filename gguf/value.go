package gguf

import (
	"fmt"
	"math"
)

// ValueType is a GGUF metadata value type id (gguf_type).
type ValueType uint32

// The GGUF metadata value types.
const (
	ValueUint8   ValueType = 0
	ValueInt8    ValueType = 1
	ValueUint16  ValueType = 2
	ValueInt16   ValueType = 3
	ValueUint32  ValueType = 4
	ValueInt32   ValueType = 5
	ValueFloat32 ValueType = 6
	ValueBool    ValueType = 7
	ValueString  ValueType = 8
	ValueArray   ValueType = 9
	ValueUint64  ValueType = 10
	ValueInt64   ValueType = 11
	ValueFloat64 ValueType = 12
	// ValueInvalid marks a Value built by ValueOf from an unsupported Go type;
	// the writer rejects it. It never comes out of the reader.
	ValueInvalid ValueType = 0xffffffff
)

var valueTypeNames = [...]string{"UINT8", "INT8", "UINT16", "INT16", "UINT32", "INT32", "FLOAT32", "BOOL", "STRING", "ARRAY", "UINT64", "INT64", "FLOAT64"}

// String returns gguf-dump's upper-case name of the type, e.g. "UINT32".
func (t ValueType) String() string {
	if int(t) < len(valueTypeNames) {
		return valueTypeNames[t]
	}
	return fmt.Sprintf("VALUE_TYPE(%d)", uint32(t))
}

// valid reports whether t is one of the 13 GGUF value types.
func (t ValueType) valid() bool { return t <= ValueFloat64 }

// size is the encoded size of a scalar of type t; strings and arrays
// return their minimum encoded size (an empty one).
func (t ValueType) size() int64 {
	switch t {
	case ValueUint8, ValueInt8, ValueBool:
		return 1
	case ValueUint16, ValueInt16:
		return 2
	case ValueUint32, ValueInt32, ValueFloat32:
		return 4
	case ValueUint64, ValueInt64, ValueFloat64, ValueString:
		return 8
	case ValueArray:
		return 12 // element type + count
	}
	return 0
}

// Value is one metadata value. V holds, by Type:
//
//	ValueUint8..ValueFloat64: uint8, int8, uint16, int16, uint32, int32,
//	    float32, bool, string, uint64, int64, float64
//	ValueArray: a typed slice ([]uint8 … []float64, []bool, []string) when
//	    Elem is a scalar type, or []Value when Elem is ValueArray
//
// Elem is the element type of an array and unused otherwise.
type Value struct {
	Type ValueType
	Elem ValueType
	V    any
}

// KV is one metadata key/value pair; File.KV keeps them in file order.
type KV struct {
	Key   string
	Value Value
}

// ValueOf wraps a Go value in a Value, inferring its GGUF type from the Go
// type (uint8 … float64, bool, string, their slices, []Value for an array
// of arrays whose elements must share one type, or a Value itself). An
// unsupported type gives Type ValueInvalid, which Write rejects.
func ValueOf(v any) Value {
	switch x := v.(type) {
	case Value:
		return x
	case []Value:
		elem := ValueArray
		return Value{Type: ValueArray, Elem: elem, V: x}
	}
	if t, ok := scalarType(v); ok {
		return Value{Type: t, V: v}
	}
	if t, ok := sliceElemType(v); ok {
		return Value{Type: ValueArray, Elem: t, V: v}
	}
	return Value{Type: ValueInvalid, V: v}
}

func scalarType(v any) (ValueType, bool) {
	switch v.(type) {
	case uint8:
		return ValueUint8, true
	case int8:
		return ValueInt8, true
	case uint16:
		return ValueUint16, true
	case int16:
		return ValueInt16, true
	case uint32:
		return ValueUint32, true
	case int32:
		return ValueInt32, true
	case float32:
		return ValueFloat32, true
	case bool:
		return ValueBool, true
	case string:
		return ValueString, true
	case uint64:
		return ValueUint64, true
	case int64:
		return ValueInt64, true
	case float64:
		return ValueFloat64, true
	}
	return 0, false
}

func sliceElemType(v any) (ValueType, bool) {
	switch v.(type) {
	case []uint8:
		return ValueUint8, true
	case []int8:
		return ValueInt8, true
	case []uint16:
		return ValueUint16, true
	case []int16:
		return ValueInt16, true
	case []uint32:
		return ValueUint32, true
	case []int32:
		return ValueInt32, true
	case []float32:
		return ValueFloat32, true
	case []bool:
		return ValueBool, true
	case []string:
		return ValueString, true
	case []uint64:
		return ValueUint64, true
	case []int64:
		return ValueInt64, true
	case []float64:
		return ValueFloat64, true
	case []Value:
		return ValueArray, true
	}
	return 0, false
}

// Len returns the number of elements of an array value, or 0 otherwise.
func (v Value) Len() int {
	if v.Type != ValueArray {
		return 0
	}
	switch x := v.V.(type) {
	case []uint8:
		return len(x)
	case []int8:
		return len(x)
	case []uint16:
		return len(x)
	case []int16:
		return len(x)
	case []uint32:
		return len(x)
	case []int32:
		return len(x)
	case []float32:
		return len(x)
	case []bool:
		return len(x)
	case []string:
		return len(x)
	case []uint64:
		return len(x)
	case []int64:
		return len(x)
	case []float64:
		return len(x)
	case []Value:
		return len(x)
	}
	return 0
}

// Uint returns an unsigned or non-negative signed integer scalar as uint64.
func (v Value) Uint() (uint64, bool) {
	switch x := v.V.(type) {
	case uint8:
		return uint64(x), true
	case uint16:
		return uint64(x), true
	case uint32:
		return uint64(x), true
	case uint64:
		return x, true
	}
	if i, ok := v.Int(); ok && i >= 0 {
		return uint64(i), true
	}
	return 0, false
}

// Int returns an integer scalar as int64 (unsigned values above
// math.MaxInt64 are not representable and give false).
func (v Value) Int() (int64, bool) {
	switch x := v.V.(type) {
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x), true
		}
	}
	return 0, false
}

// Float returns a float32 or float64 scalar as float64.
func (v Value) Float() (float64, bool) {
	switch x := v.V.(type) {
	case float32:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// Bool returns a bool scalar.
func (v Value) Bool() (bool, bool) {
	b, ok := v.V.(bool)
	return b, ok
}

// Str returns a string scalar. (Value.String formats any value.)
func (v Value) Str() (string, bool) {
	s, ok := v.V.(string)
	return s, ok
}

// Strings returns an array of strings.
func (v Value) Strings() ([]string, bool) {
	s, ok := v.V.([]string)
	return s, ok && v.Type == ValueArray
}

// Ints returns an array of any integer type as []int64 (a fresh slice;
// false if an unsigned element exceeds math.MaxInt64).
func (v Value) Ints() ([]int64, bool) {
	if v.Type != ValueArray {
		return nil, false
	}
	switch x := v.V.(type) {
	case []int64:
		return append([]int64(nil), x...), true
	case []uint64:
		out := make([]int64, len(x))
		for i, e := range x {
			if e > math.MaxInt64 {
				return nil, false
			}
			out[i] = int64(e)
		}
		return out, true
	}
	return convInts(v.V)
}

func convInts(v any) ([]int64, bool) {
	switch x := v.(type) {
	case []int8:
		return conv(x), true
	case []uint8:
		return conv(x), true
	case []int16:
		return conv(x), true
	case []uint16:
		return conv(x), true
	case []int32:
		return conv(x), true
	case []uint32:
		return conv(x), true
	}
	return nil, false
}

func conv[T int8 | uint8 | int16 | uint16 | int32 | uint32](x []T) []int64 {
	out := make([]int64, len(x))
	for i, e := range x {
		out[i] = int64(e)
	}
	return out
}

// Floats returns an array of float32 (shared with the Value) or float64
// (converted) elements as []float32.
func (v Value) Floats() ([]float32, bool) {
	if v.Type != ValueArray {
		return nil, false
	}
	switch x := v.V.(type) {
	case []float32:
		return x, true
	case []float64:
		out := make([]float32, len(x))
		for i, e := range x {
			out[i] = float32(e)
		}
		return out, true
	}
	return nil, false
}

// String formats the value for humans (arrays in full; see inspect for
// abbreviation).
func (v Value) String() string {
	if s, ok := v.V.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v.V)
}
