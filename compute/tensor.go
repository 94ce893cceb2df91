package compute

import (
	"fmt"

	"github.com/webgguf/webgguf/gguf"
)

// Kind says who owns a tensor's storage and how long it lives.
type Kind uint8

// Tensor kinds.
const (
	// Activation is an intermediate result owned by one graph's arena.
	Activation Kind = iota
	// Weight is a model parameter, stored by the backend in its file format.
	Weight
	// Cache is a KV cache layer, persistent across steps and graphs.
	Cache
	// Input is an int32 vector supplied per step (token ids, output rows).
	Input
)

// String returns the name of the Kind.
func (k Kind) String() string {
	switch k {
	case Activation:
		return "activation"
	case Weight:
		return "weight"
	case Cache:
		return "cache"
	case Input:
		return "input"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// RowSpace says how many rows of an activation are valid in a step: the
// static Ne[1] is the micro-batch size B, the valid count is N or NOut.
type RowSpace uint8

// Row spaces.
const (
	// RowsStatic means all Ne[1] rows are valid (weights, caches).
	RowsStatic RowSpace = iota
	// RowsTokens means the first Step.N rows are valid.
	RowsTokens
	// RowsOut means the first Step.NOut rows are valid.
	RowsOut
)

// Tensor is a symbolic tensor: a shape and a type, no data. Backends keep
// the data of weights and caches keyed by the *Tensor, and the data of
// activations at Offset in a graph's arena.
type Tensor struct {
	// Name is the GGUF tensor name for weights, a debugging label otherwise.
	Name string
	Kind Kind
	// Type is the storage type: a ggml type for weights, F32 for
	// activations and caches, I32 for inputs.
	Type gguf.GGMLType
	// Ne is the shape, ggml order (Ne[0] contiguous); unused dims are 1.
	Ne [3]int
	// Rows is the valid-row rule of an activation.
	Rows RowSpace
	// Ring marks a cache shorter than the context: position p lives in
	// row p mod Ne[1] (NewRingCache).
	Ring bool
	// Offset is the activation's position in its graph's arena, in f32
	// elements; set by Plan.
	Offset int
	// View, for a weight, says that its data are rows of another GGUF
	// tensor (a part of a fused tensor); nil when the data are the GGUF
	// tensor Name. Backends need not look at it: a view is loaded as the
	// ordinary weight of its own shape.
	View *View

	id int // index in the graph's tensor list (activations and inputs)
}

// NewWeight describes a weight tensor of the given GGUF name, type and shape.
func NewWeight(name string, t gguf.GGMLType, ne0, ne1 int) *Tensor {
	return &Tensor{Name: name, Kind: Weight, Type: t, Ne: [3]int{ne0, ne1, 1}}
}

// View is where a weight view's rows lie: rows [Row, Row+Ne[1]) of the
// GGUF tensor Source. Some converters write several weights as one tensor
// (Phi-3's attn_qkv holds q, k and v; its ffn_up holds gate and up); ggml
// rows are contiguous, so each part is one byte range of the file and is
// streamed into the backend as a weight of its own. Nothing is copied or
// sliced at run time, and the backends' fusions see the same three (or
// two) MatMuls as for a file with separate tensors.
type View struct {
	// Source is the GGUF name of the tensor that holds the rows.
	Source string
	// Row is the index in Source of the view's first row.
	Row int
}

// ViewError reports a weight view that does not fit its source tensor.
type ViewError struct {
	Name, Source string
	Row, Rows    int
	Reason       string
}

// Error formats the ViewError.
func (e *ViewError) Error() string {
	return fmt.Sprintf("compute: view %s of %s (%d rows from row %d): %s", e.Name, e.Source, e.Rows, e.Row, e.Reason)
}

// NewWeightView describes the weight name whose data are rows
// [row, row+rows) of weight src: a view of src's bytes (see View), of
// src's type and row length. A view of a view is a view of the first
// one's source. It returns a *ViewError when src is not a 2-D weight
// whose rows are whole blocks of its type, or when the rows are not
// inside src.
func NewWeightView(src *Tensor, name string, row, rows int) (*Tensor, error) {
	if src == nil {
		return nil, &ViewError{Name: name, Row: row, Rows: rows, Reason: "no source tensor"}
	}
	fail := func(reason string) (*Tensor, error) {
		return nil, &ViewError{Name: name, Source: src.Name, Row: row, Rows: rows, Reason: reason}
	}
	switch _, ok := src.Type.RowBytes(int64(src.Ne[0])); {
	case src.Kind != Weight:
		return fail(fmt.Sprintf("source is a %s, not a weight", src.Kind))
	case src.Ne[2] != 1:
		return fail(fmt.Sprintf("source shape %v is not 2-D", src.Ne))
	case !ok || src.Ne[0] <= 0:
		return fail(fmt.Sprintf("source rows of %d are not whole %s blocks", src.Ne[0], src.Type))
	case rows < 1 || row < 0 || row > src.Ne[1]-rows:
		return fail(fmt.Sprintf("outside the source's %d rows", src.Ne[1]))
	}
	v := &View{Source: src.Name, Row: row}
	if src.View != nil {
		v = &View{Source: src.View.Source, Row: src.View.Row + row}
	}
	t := NewWeight(name, src.Type, src.Ne[0], rows)
	t.View = v
	return t, nil
}

// ByteRange returns where a weight's data lie in its GGUF tensor
// (View.Source for a view, Name otherwise): n bytes from byte off. It
// returns false for a shape that is not rows of whole blocks of the type.
// Rows of a quantized type are Ne[0]/block-size blocks each, so a row
// range is one byte range.
func (t *Tensor) ByteRange() (off, n int64, ok bool) {
	rb, ok := t.Type.RowBytes(int64(t.Ne[0]))
	if !ok || t.Ne[0] <= 0 || t.Ne[1] < 0 || t.Ne[2] < 0 {
		return 0, 0, false
	}
	if t.View != nil {
		off = int64(t.View.Row) * rb
	}
	return off, rb * int64(t.Ne[1]) * int64(t.Ne[2]), true
}

// NewCache describes one layer's K or V cache: f32 [headDim, nCtx, nKV].
func NewCache(name string, headDim, nCtx, nKV int) *Tensor {
	return &Tensor{Name: name, Kind: Cache, Type: gguf.TypeF32, Ne: [3]int{headDim, nCtx, nKV}}
}

// NewRingCache describes one sliding-window layer's K or V cache holding
// the last n positions, position p in row p mod n: f32 [headDim, n, nKV].
func NewRingCache(name string, headDim, n, nKV int) *Tensor {
	t := NewCache(name, headDim, n, nKV)
	t.Ring = true
	return t
}

// Elems is the number of elements of the full static shape.
func (t *Tensor) Elems() int { return t.Ne[0] * t.Ne[1] * t.Ne[2] }

// String formats the tensor for error messages.
func (t *Tensor) String() string {
	if t.View != nil {
		return fmt.Sprintf("%s(%s %s %v = %s rows %d..%d)", t.Name, t.Kind, t.Type, t.Ne, t.View.Source, t.View.Row, t.View.Row+t.Ne[1])
	}
	return fmt.Sprintf("%s(%s %s %v)", t.Name, t.Kind, t.Type, t.Ne)
}
