package gguf

import "fmt"

// CodecError reports why a block codec (Dequantize, Quantize and friends)
// refused its input: an unsupported type, an element count that is not a
// whole number of blocks, or a byte slice of the wrong length.
type CodecError struct {
	Op     string   // "dequantize" or "quantize"
	Type   GGMLType // the ggml type being converted
	Field  string   // which argument is wrong: "type", "n", "src", "dst"
	Got    int64    // the offending value (count or length)
	Want   int64    // what was required (0 when not a single number)
	Reason string   // human-readable explanation
}

// Error describes the refused input, naming the operation, type and field.
func (e *CodecError) Error() string {
	if e.Want != 0 {
		return fmt.Sprintf("gguf: %s %s: %s: %s (got %d, want %d)", e.Op, e.Type, e.Field, e.Reason, e.Got, e.Want)
	}
	return fmt.Sprintf("gguf: %s %s: %s: %s (got %d)", e.Op, e.Type, e.Field, e.Reason, e.Got)
}
