package model

import (
	"github.com/webgguf/webgguf/compute"
)

// Phi3 is the phi3 architecture (Phi-3/3.5-mini, Phi-4-mini), as
// llama.cpp's src/models/phi3.cpp builds it: llama's pre-norm blocks and
// SwiGLU with NEOX RoPE, whose GGUF fuses q, k and v into attn_qkv and
// gate and up into ffn_up (bound as views: FusedQKV, FusedGateUp); RoPE
// may rotate only the first rope.dimension_count dims of a head (Phi-4-
// mini: 96 of 128), with LongRoPE frequency factors; the output is untied
// unless the file lacks output.weight (Phi-4-mini).
type Phi3 struct {
	base
	TokenEmbd *compute.Tensor `gguf:"token_embd"`
	Layers    []LlamaLayer    `gguf:"blk"`
	Output
	// RopeShort and RopeLong are LongRoPE's frequency divisors (n_rot/2
	// each, one pair for all layers), used below and above the original
	// training context respectively (Config.NCtxOrig).
	RopeShort *compute.Tensor `gguf:"rope_factors_short,optional"`
	RopeLong  *compute.Tensor `gguf:"rope_factors_long,optional"`
}

func init() {
	register("phi3", arch{hparams: phi3HParams, new: func(c Config) bindable { return &Phi3{base: base{cfg: c}} },
		fused: []Fusion{FusedQKV(), FusedGateUp()}})
}

// phi3HParams reads llama.cpp's phi3 hyperparameters: NEOX RoPE, query
// scale 1/sqrt(head_dim) (the shared default). llama.cpp reads
// attention.sliding_window but then disables Phi's sliding window
// (llama.cpp PR 13676: every layer attends to the whole context), so a
// window in the file is ignored here too. The LongRoPE keys
// (rope.scaling.original_context_length, rope.scaling.attn_factor) are
// read by ReadConfig for every architecture.
func phi3HParams(k *keys, c *Config) {
	c.RopeMode = compute.RopeNeox
}

func (m *Phi3) shapes(s *shapes) {
	c := &m.cfg
	s.want(m.TokenEmbd, c.NEmbd, c.NVocab)
	for _, l := range m.Layers {
		l.shapes(s, c)
	}
	m.Output.shapes(s, c)
	s.want(m.RopeShort, c.NRot/2, 1)
	s.want(m.RopeLong, c.NRot/2, 1)
}

// RopeFactors returns the frequency factors llama.cpp's
// llama_model::get_rope_factors picks for a context of nCtx positions:
// rope_factors_long when nCtx exceeds the original training context
// (rope.scaling.original_context_length, default context_length), else
// rope_factors_short; nil where the file has neither.
func (m *Phi3) RopeFactors(nCtx int) *compute.Tensor {
	if nCtx > m.cfg.NCtxOrig {
		return m.RopeLong
	}
	return m.RopeShort
}

// Forward builds llama's graph (phi3.cpp is it, with the q scale
// 1/sqrt(head_dim) applied to q before attention, which is the
// attention's own scale here), with the LongRoPE factors chosen for the
// cache's context size.
func (m *Phi3) Forward(g *compute.Graph, kv *KVCache) error {
	return llamaForward(g, kv, &m.cfg, m.TokenEmbd, m.Layers, &m.Output, attnOpts{freqs: m.RopeFactors(kv.NCtx)})
}
