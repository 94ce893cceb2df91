package compute

// Op is one operation of the op set every backend implements.
type Op uint8

// The op set; see the package documentation for the semantics.
const (
	OpGetRows Op = iota + 1
	OpSelectRows
	OpRMSNorm
	OpMatMul
	OpRope
	OpKVWrite
	OpAttention
	OpSiluMul
	OpAdd
)

var opNames = map[Op]string{
	OpGetRows: "get_rows", OpSelectRows: "select_rows", OpRMSNorm: "rms_norm",
	OpMatMul: "matmul", OpRope: "rope", OpKVWrite: "kv_write",
	OpAttention: "attention", OpSiluMul: "silu_mul", OpAdd: "add",
}

// String returns the name of the Op.
func (o Op) String() string {
	if s, ok := opNames[o]; ok {
		return s
	}
	return "op?"
}

// RopeMode selects how RoPE pairs dimensions, as ggml's rope modes.
type RopeMode uint8

// RoPE modes.
const (
	// RopeNormal rotates adjacent pairs (2i, 2i+1): llama.
	RopeNormal RopeMode = 0
	// RopeNeox rotates (i, i+nRot/2): GPT-NeoX, qwen2, qwen3.
	RopeNeox RopeMode = 2
)

// RopeParams are the static parameters of a Rope node.
type RopeParams struct {
	Mode    RopeMode
	NHeads  int     // heads in a row
	HeadDim int     // elements per head
	NRot    int     // rotated dimensions per head (<= HeadDim, even)
	Base    float32 // theta base (freq_base)
	Scale   float32 // frequency scale (1/linear scaling factor)
}

// AttnParams are the static parameters of KVWrite and Attention nodes.
type AttnParams struct {
	NHead   int     // query heads
	NHeadKV int     // key/value heads; NHead is a multiple of it (GQA)
	HeadDim int     // elements per head, keys and values
	Scale   float32 // multiplier of q·k, usually 1/sqrt(HeadDim)
}

// Node is one op applied to sources, producing Dst (nil for KVWrite).
type Node struct {
	Op  Op
	Src []*Tensor // inputs; optional ones (bias, norm weight) may be nil
	Dst *Tensor
	Eps float32 // RMSNorm epsilon
	// Group is RMSNorm's normalisation width (Ne[0] of x, or head_dim for
	// per-head q/k norms).
	Group int
	Rope  RopeParams
	Attn  AttnParams
}
