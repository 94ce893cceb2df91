package gguf

import (
	"fmt"
	"math"
)

// value encodes v's payload (its type id is written by the caller),
// checking that the Go value matches the declared type.
func (e *enc) value(v Value, depth int) error {
	if v.Type == ValueArray {
		return e.array(v, depth+1)
	}
	t, ok := scalarType(v.V)
	if !ok || t != v.Type {
		return fmt.Errorf("value of Go type %T does not match GGUF type %v", v.V, v.Type)
	}
	switch x := v.V.(type) {
	case uint8:
		e.u8(x)
	case int8:
		e.u8(uint8(x))
	case bool:
		if x {
			e.u8(1)
		} else {
			e.u8(0)
		}
	case uint16:
		e.u16(x)
	case int16:
		e.u16(uint16(x))
	case uint32:
		e.u32(x)
	case int32:
		e.u32(uint32(x))
	case float32:
		e.u32(math.Float32bits(x))
	case uint64:
		e.u64(x)
	case int64:
		e.u64(uint64(x))
	case float64:
		e.u64(math.Float64bits(x))
	case string:
		e.str(x)
	}
	return e.err
}

func (e *enc) array(v Value, depth int) error {
	if depth > MaxNesting {
		return ErrNesting
	}
	t, ok := sliceElemType(v.V)
	if !ok || t != v.Elem {
		return fmt.Errorf("array of Go type %T does not match element type %v", v.V, v.Elem)
	}
	e.u32(uint32(v.Elem))
	e.u64(uint64(v.Len()))
	if nested, ok := v.V.([]Value); ok {
		for i, x := range nested {
			if x.Type != ValueArray {
				return fmt.Errorf("element %d of an array of arrays has type %v", i, x.Type)
			}
			if err := e.array(x, depth+1); err != nil {
				return err
			}
		}
		return e.err
	}
	return e.elems(v.V)
}

func (e *enc) elems(v any) error {
	switch x := v.(type) {
	case []uint8:
		e.write(x)
	case []int8:
		for _, y := range x {
			e.u8(uint8(y))
		}
	case []bool:
		for _, y := range x {
			if y {
				e.u8(1)
			} else {
				e.u8(0)
			}
		}
	case []uint16:
		for _, y := range x {
			e.u16(y)
		}
	case []int16:
		for _, y := range x {
			e.u16(uint16(y))
		}
	case []uint32:
		for _, y := range x {
			e.u32(y)
		}
	case []int32:
		for _, y := range x {
			e.u32(uint32(y))
		}
	case []float32:
		for _, y := range x {
			e.u32(math.Float32bits(y))
		}
	case []uint64:
		for _, y := range x {
			e.u64(y)
		}
	case []int64:
		for _, y := range x {
			e.u64(uint64(y))
		}
	case []float64:
		for _, y := range x {
			e.u64(math.Float64bits(y))
		}
	case []string:
		for _, y := range x {
			e.str(y)
		}
	}
	return e.err
}
