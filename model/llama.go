package model

import (
	"github.com/webgguf/webgguf/compute"
)

// Llama is the llama architecture (Llama 2/3, TinyLlama, SmolLM, Mistral
// without sliding window): pre-norm blocks, adjacent-pair RoPE, SwiGLU.
type Llama struct {
	base
	TokenEmbd *compute.Tensor `gguf:"token_embd"`
	Layers    []LlamaLayer    `gguf:"blk"`
	Output
	// RopeFreqs divides the rotary frequencies (Llama 3.1 long-context
	// scaling, written by the converter as a tensor).
	RopeFreqs *compute.Tensor `gguf:"rope_freqs,optional"`
}

// LlamaLayer is one llama block (qwen2 and qwen3 share it).
type LlamaLayer struct {
	AttnNorm *compute.Tensor `gguf:"attn_norm"`
	SelfAttention
	FFNNorm *compute.Tensor `gguf:"ffn_norm"`
	FFN
}

func init() {
	register("llama", arch{new: func(c Config) bindable { return &Llama{base: base{cfg: c}} }})
}

func (m *Llama) shapes(s *shapes) {
	c := &m.cfg
	s.want(m.TokenEmbd, c.NEmbd, c.NVocab)
	for _, l := range m.Layers {
		l.shapes(s, c)
	}
	m.Output.shapes(s, c)
	s.want(m.RopeFreqs, c.NRot/2, 1)
}

func (l *LlamaLayer) shapes(s *shapes, c *Config) {
	s.want(l.AttnNorm, c.NEmbd, 1)
	l.SelfAttention.shapes(s, c)
	s.want(l.FFNNorm, c.NEmbd, 1)
	l.FFN.shapes(s, c)
}

// Forward builds the graph:
//
//	x = embd[tokens]
//	per layer:  x += attention(rmsnorm(x)·w_attn_norm)
//	            x += ffn_swiglu(rmsnorm(x)·w_ffn_norm)
//	logits = Woutput·(rmsnorm(x[out rows])·w_output_norm)
func (m *Llama) Forward(g *compute.Graph, kv *KVCache) error {
	return llamaForward(g, kv, &m.cfg, m.TokenEmbd, m.Layers, &m.Output, attnOpts{freqs: m.RopeFreqs})
}

// llamaForward is the llama graph over layers, shared by the architectures
// whose blocks differ only in which optional tensors they carry.
func llamaForward(g *compute.Graph, kv *KVCache, c *Config, embd *compute.Tensor, layers []LlamaLayer, out *Output, o attnOpts) error {
	x := g.GetRows(embd)
	for il, l := range layers {
		x = g.Add(x, l.SelfAttention.Forward(g, c, il, g.RMSNorm(x, l.AttnNorm, c.Eps, c.NEmbd), kv, o))
		x = g.Add(x, l.FFN.Forward(g, g.RMSNorm(x, l.FFNNorm, c.Eps, c.NEmbd), compute.ActSiLU))
	}
	if c.Embeddings {
		// An embedding model (a pooling type): the normed hidden states.
		return g.SetLogits(g.RMSNorm(g.SelectRows(x), out.Norm, c.Eps, c.NEmbd))
	}
	return g.SetLogits(out.Forward(g, c, x))
}
