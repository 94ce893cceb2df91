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
	OpGLU
	OpAdd
	OpMul
	OpScale
	OpSoftcap
	OpLayerNorm
	OpAct
	OpPosRows
)

var opNames = map[Op]string{
	OpGetRows: "get_rows", OpSelectRows: "select_rows", OpRMSNorm: "rms_norm",
	OpMatMul: "matmul", OpRope: "rope", OpKVWrite: "kv_write",
	OpAttention: "attention", OpGLU: "glu", OpAdd: "add",
	OpMul: "mul", OpScale: "scale", OpSoftcap: "softcap", OpLayerNorm: "layer_norm", OpAct: "act",
	OpPosRows: "pos_rows",
}

// String returns the name of the Op.
func (o Op) String() string {
	if s, ok := opNames[o]; ok {
		return s
	}
	return "op?"
}

// ActFunc is the nonlinearity of a GLU or Act node.
type ActFunc uint8

// Activations.
const (
	// ActSiLU is x·sigmoid(x) (SwiGLU when gated).
	ActSiLU ActFunc = iota
	// ActGELU is GELU in its tanh form, as ggml_gelu computes it
	// (GeGLU when gated): 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
	ActGELU
)

// String returns the name of the activation.
func (a ActFunc) String() string {
	switch a {
	case ActSiLU:
		return "silu"
	case ActGELU:
		return "gelu"
	}
	return "act?"
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
	// AttnFactor multiplies the rotated dimensions (ggml_rope_ext's
	// attn_factor, LongRoPE's magnitude scaling); 0 is read as 1.
	AttnFactor float32
}

// Mscale returns p.AttnFactor, 1 where it is 0.
func (p RopeParams) Mscale() float32 {
	if p.AttnFactor == 0 {
		return 1
	}
	return p.AttnFactor
}

// AttnParams are the static parameters of KVWrite and Attention nodes.
type AttnParams struct {
	NHead   int     // query heads
	NHeadKV int     // key/value heads; NHead is a multiple of it (GQA)
	HeadDim int     // elements per head, keys and values
	Scale   float32 // multiplier of q·k, usually 1/sqrt(HeadDim)
	// Window, when > 0, limits a query at position p to the keys at
	// positions p-Window+1..p (llama.cpp's standard sliding window:
	// masked when p - p_key >= Window). 0 attends to all earlier keys.
	Window int
	// Softcap, when > 0, caps the scaled scores: Softcap·tanh(s/Softcap),
	// before the mask and the softmax (Gemma 2).
	Softcap float32
	// NonCausal lets every row attend to every position of the step's
	// batch and before it (encoders); the default is causal.
	NonCausal bool
}

// Node is one op applied to sources, producing Dst (nil for KVWrite).
type Node struct {
	Op  Op
	Src []*Tensor // inputs; optional ones (bias, norm weight) may be nil
	Dst *Tensor
	Eps float32 // RMSNorm / LayerNorm epsilon
	// Group is RMSNorm's and LayerNorm's normalisation width (Ne[0] of x,
	// or head_dim for per-head q/k norms).
	Group int
	// Act is the nonlinearity of GLU and Act nodes.
	Act ActFunc
	// Scalar is Scale's factor and Softcap's cap.
	Scalar float32
	Rope   RopeParams
	Attn   AttnParams
	// Row0 makes a PosRows node read row 0 for every token (TypeRows).
	Row0 bool
}
