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

	id int // index in the graph's tensor list (activations and inputs)
}

// NewWeight describes a weight tensor of the given GGUF name, type and shape.
func NewWeight(name string, t gguf.GGMLType, ne0, ne1 int) *Tensor {
	return &Tensor{Name: name, Kind: Weight, Type: t, Ne: [3]int{ne0, ne1, 1}}
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
	return fmt.Sprintf("%s(%s %s %v)", t.Name, t.Kind, t.Type, t.Ne)
}
