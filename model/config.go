package model

import (
	"fmt"

	"github.com/webgguf/webgguf/compute"
	"math"
	"strings"

	"github.com/webgguf/webgguf/gguf"
)

// Config holds the hyperparameters of a decoder-only transformer.
type Config struct {
	Arch      string
	NVocab    int
	NEmbd     int
	NLayer    int
	NHead     int
	NHeadKV   int
	HeadDim   int // key/value head width ({arch}.attention.key_length)
	NFF       int
	NCtxTrain int
	// NCtxOrig is the context the model was trained at before any
	// long-context extension (rope.scaling.original_context_length,
	// default NCtxTrain): LongRoPE's short factors serve up to it.
	NCtxOrig  int
	Eps       float32 // RMS norm epsilon
	NRot      int     // rotated dims per head
	RopeBase  float32
	RopeScale float32 // frequency scale: 1 / linear scaling factor
	// RopeAttnFactor multiplies the rotated dimensions after RoPE
	// (rope.scaling.attn_factor, default 1; LongRoPE's
	// sqrt(1 + ln(ctx/ctx_orig)/ln(ctx_orig)) in Phi-3.5/Phi-4-mini files),
	// as llama.cpp's ggml_rope_ext applies its attn_factor.
	RopeAttnFactor float32
	BOS, EOS       int32 // -1 when the file names none
	// RopeMode is how the architecture pairs rotated dimensions.
	RopeMode compute.RopeMode
	// FinalSoftcap, when > 0, caps the logits: cap·tanh(l/cap) (Gemma 2).
	FinalSoftcap float32
	// Layers holds what differs between layers, one entry per layer.
	Layers []LayerConfig
	// Embeddings is true for an encoder whose graph result is the final
	// hidden states ([n_embd] per output row) rather than logits.
	Embeddings bool
	// NonCausal is true when every token attends to the whole sequence
	// ({arch}.attention.causal false), which must then be evaluated in
	// one micro-batch.
	NonCausal bool
	// NTokenTypes is the rows of a BERT token_types table
	// (tokenizer.ggml.token_type_count, default 2).
	NTokenTypes int
	// Pooling is {arch}.pooling_type, how a sequence embedding is made
	// from the hidden states (PoolingNone when the file names none).
	Pooling Pooling
}

// Pooling is llama.cpp's llama_pooling_type.
type Pooling int

// Pooling types, numbered as llama.cpp numbers them in GGUF files.
const (
	PoolingNone Pooling = 0
	PoolingMean Pooling = 1
	PoolingCLS  Pooling = 2
	PoolingLast Pooling = 3
	PoolingRank Pooling = 4
)

// String returns llama.cpp's name of the pooling type.
func (p Pooling) String() string {
	switch p {
	case PoolingNone:
		return "none"
	case PoolingMean:
		return "mean"
	case PoolingCLS:
		return "cls"
	case PoolingLast:
		return "last"
	case PoolingRank:
		return "rank"
	}
	return "pooling?"
}

// LayerConfig is the attention of one layer: llama.cpp's per-layer
// hyperparameters (sliding window, RoPE base and scale, query scale).
type LayerConfig struct {
	// Window is the sliding window (attention to the last Window
	// positions, the query's own included); 0 is full attention.
	Window int
	// Rope is false for a layer without rotary embedding.
	Rope      bool
	RopeBase  float32
	RopeScale float32 // frequency scale: 1 / linear scaling factor
	// AttnScale multiplies q·k: 1/sqrt(HeadDim) unless the architecture
	// says otherwise.
	AttnScale float32
	// AttnSoftcap, when > 0, caps the scaled scores (Gemma 2).
	AttnSoftcap float32
}

// Limits on hyperparameters: generous for real models, but small enough
// that a hostile file cannot make Load allocate without bound.
const (
	maxDim   = 1 << 17
	maxLayer = 1 << 12
	maxHead  = 1 << 12
)

type keys struct {
	f   *gguf.File
	err error
}

func (k *keys) uint(key string, def int, lo, hi int) int {
	v, ok := k.f.Uint(key)
	if !ok {
		if _, present := k.f.Value(key); present {
			k.fail(key, "not a non-negative integer")
			return 0
		}
		if def < 0 {
			k.fail(key, "missing")
		}
		return def
	}
	if v < uint64(lo) || v > uint64(hi) {
		k.fail(key, fmt.Sprintf("value %d outside [%d, %d]", v, lo, hi))
		return 0
	}
	return int(v)
}

func (k *keys) float(key string, def float64) float32 {
	v, ok := k.f.Float(key)
	if !ok {
		if _, present := k.f.Value(key); present {
			k.fail(key, "not a float")
		}
		return float32(def)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		k.fail(key, fmt.Sprintf("value %g not a positive number", v))
	}
	return float32(v)
}

func (k *keys) bool(key string, def bool) bool {
	if _, present := k.f.Value(key); !present {
		return def
	}
	v, ok := k.f.Bool(key)
	if !ok {
		k.fail(key, "not a bool")
	}
	return v
}

func (k *keys) fail(key, reason string) {
	if k.err == nil {
		k.err = &KeyError{Key: strings.Replace(key, "{arch}", k.f.Arch(), 1), Reason: reason}
	}
}

// ReadConfig reads the hyperparameters of f's architecture.
func ReadConfig(f *gguf.File) (Config, error) {
	k := &keys{f: f}
	c := Config{Arch: f.Arch()}
	c.NEmbd = k.uint("{arch}.embedding_length", -1, 1, maxDim)
	c.NLayer = k.uint("{arch}.block_count", -1, 1, maxLayer)
	c.NFF = k.uint("{arch}.feed_forward_length", -1, 1, maxDim)
	c.NHead = k.uint("{arch}.attention.head_count", -1, 1, maxHead)
	c.NHeadKV = k.uint("{arch}.attention.head_count_kv", c.NHead, 1, maxHead)
	c.NCtxTrain = k.uint("{arch}.context_length", 2048, 1, 1<<24)
	c.NCtxOrig = k.uint("{arch}.rope.scaling.original_context_length", c.NCtxTrain, 1, 1<<24)
	c.RopeAttnFactor = k.float("{arch}.rope.scaling.attn_factor", 1)
	c.Eps = k.float("{arch}.attention.layer_norm_rms_epsilon", 1e-5)
	c.RopeBase = k.float("{arch}.rope.freq_base", 10000)
	c.RopeScale = 1
	if k.err != nil {
		return c, k.err
	}
	if c.NHead%c.NHeadKV != 0 {
		k.fail("{arch}.attention.head_count_kv", fmt.Sprintf("%d does not divide head_count %d", c.NHeadKV, c.NHead))
	}
	def := -1
	if c.NEmbd%c.NHead == 0 {
		def = c.NEmbd / c.NHead
	}
	c.HeadDim = k.uint("{arch}.attention.key_length", def, 2, maxDim)
	if v := k.uint("{arch}.attention.value_length", c.HeadDim, 1, maxDim); v != c.HeadDim && k.err == nil {
		k.fail("{arch}.attention.value_length", fmt.Sprintf("%d differs from key_length %d (not supported)", v, c.HeadDim))
	}
	c.NRot = k.uint("{arch}.rope.dimension_count", c.HeadDim, 2, max(c.HeadDim, 2))
	if c.NRot%2 != 0 {
		k.fail("{arch}.rope.dimension_count", fmt.Sprintf("%d is odd", c.NRot))
	}
	if typ, ok := f.String("{arch}.rope.scaling.type"); ok && typ != "none" && typ != "linear" {
		k.fail("{arch}.rope.scaling.type", fmt.Sprintf("%q not supported", typ))
	}
	if typ, _ := f.String("{arch}.rope.scaling.type"); typ == "linear" {
		c.RopeScale = 1 / k.float("{arch}.rope.scaling.factor", 1)
	}
	c.BOS, c.EOS = tokenID(f, "tokenizer.ggml.bos_token_id"), tokenID(f, "tokenizer.ggml.eos_token_id")
	if k.err != nil {
		return c, k.err
	}
	c.Layers = make([]LayerConfig, c.NLayer)
	for i := range c.Layers {
		c.Layers[i] = LayerConfig{Rope: true, RopeBase: c.RopeBase, RopeScale: c.RopeScale, AttnScale: float32(1 / math.Sqrt(float64(c.HeadDim)))}
	}
	if a, ok := registry[c.Arch]; ok && a.hparams != nil {
		a.hparams(k, &c)
	}
	if decoderPooling[c.Arch] {
		// A decoder with a pooling type is an embedding model (Qwen3-Embedding:
		// qwen3 with last pooling): its result is the output-normed hidden
		// state, llama.cpp's result_norm.
		const key = "{arch}.pooling_type"
		c.Pooling = Pooling(k.uint(key, int(PoolingNone), 0, int(PoolingRank)))
		if c.Pooling == PoolingRank {
			k.fail(key, "rank pooling of a decoder (a Qwen3 reranker) is not supported")
		}
		c.Embeddings = c.Pooling != PoolingNone
	}
	return c, k.err
}

// decoderPooling are the decoder architectures whose pooling_type key makes
// an embedding model (their graph is llamaForward's).
var decoderPooling = map[string]bool{"llama": true, "qwen2": true, "qwen3": true}

func tokenID(f *gguf.File, key string) int32 {
	if v, ok := f.Uint(key); ok && v < math.MaxInt32 {
		return int32(v)
	}
	return -1
}
