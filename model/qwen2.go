package model

import (
	"github.com/webgguf/webgguf/compute"
)

// Qwen2 is the qwen2 architecture: the llama block with q/k/v biases and
// NEOX RoPE.
type Qwen2 struct {
	base
	TokenEmbd *compute.Tensor `gguf:"token_embd"`
	Layers    []LlamaLayer    `gguf:"blk"`
	Output
}

func init() {
	register("qwen2", arch{
		hparams: func(_ *keys, c *Config) { c.RopeMode = compute.RopeNeox },
		new:     func(c Config) bindable { return &Qwen2{base: base{cfg: c}} },
	})
}

func (m *Qwen2) shapes(s *shapes) {
	c := &m.cfg
	s.want(m.TokenEmbd, c.NEmbd, c.NVocab)
	for il, l := range m.Layers {
		l.needBiases(s, il)
		l.shapes(s, c)
	}
	m.Output.shapes(s, c)
}

// Forward is llama's graph (Llama.Forward) with biased projections.
func (m *Qwen2) Forward(g *compute.Graph, kv *KVCache) error {
	return llamaForward(g, kv, &m.cfg, m.TokenEmbd, m.Layers, &m.Output, attnOpts{})
}
