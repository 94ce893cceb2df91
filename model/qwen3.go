package model

import (
	"github.com/webgguf/webgguf/compute"
)

// Qwen3 is the qwen3 architecture: per-head RMS norms on q and k before
// NEOX RoPE, head_dim independent of n_embd/n_head, no biases.
type Qwen3 struct {
	base
	TokenEmbd *compute.Tensor `gguf:"token_embd"`
	Layers    []LlamaLayer    `gguf:"blk"`
	Output
}

func init() {
	register("qwen3", arch{
		hparams: func(_ *keys, c *Config) { c.RopeMode = compute.RopeNeox },
		new:     func(c Config) bindable { return &Qwen3{base: base{cfg: c}} },
	})
}

func (m *Qwen3) shapes(s *shapes) {
	c := &m.cfg
	s.want(m.TokenEmbd, c.NEmbd, c.NVocab)
	for il, l := range m.Layers {
		l.needQKNorms(s, il)
		l.shapes(s, c)
	}
	m.Output.shapes(s, c)
}

// Forward is llama's graph (Llama.Forward) with q/k norms.
func (m *Qwen3) Forward(g *compute.Graph, kv *KVCache) error {
	return llamaForward(g, kv, &m.cfg, m.TokenEmbd, m.Layers, &m.Output, attnOpts{})
}
