package model

import (
	"github.com/webgguf/webgguf/compute"
)

// BitNet is llama.cpp's bitnet architecture (BitNet b1.58, 1bitLLM's
// bitnet_b1_58 models), as src/models/bitnet.cpp builds it: llama's
// pre-norm blocks with NEOX RoPE, plus an RMS norm of the attention output
// before attn_output (attn_sub_norm) and of the gated FFN activation,
// n_ff wide, before ffn_down (ffn_sub_norm). The FFN gate is SiLU, which
// bitnet.cpp hard-codes (the models' configured hidden_act). The head is
// always token_embd: llama.cpp's bitnet graph never reads output.weight.
// The projections are meant to be ternary (TQ1_0, TQ2_0), but any weight
// type loads.
//
// The other BitNet layout, with a per-tensor scale as a tensor of its own
// (blk.N.attn_q.scale …, for weights stored without their scale), is
// refused with an UnsupportedError.
type BitNet struct {
	base
	TokenEmbd  *compute.Tensor `gguf:"token_embd"`
	Layers     []BitNetLayer   `gguf:"blk"`
	OutputNorm *compute.Tensor `gguf:"output_norm"`
}

// BitNetLayer is one bitnet block.
type BitNetLayer struct {
	AttnNorm *compute.Tensor `gguf:"attn_norm"`
	SelfAttention
	AttnSubNorm *compute.Tensor `gguf:"attn_sub_norm"`
	FFNNorm     *compute.Tensor `gguf:"ffn_norm"`
	FFN
	FFNSubNorm *compute.Tensor `gguf:"ffn_sub_norm"`
	// Scales are the separate per-tensor scales of the other layout,
	// bound only to refuse them.
	Scales bitnetScales
}

type bitnetScales struct {
	Q    *compute.Tensor `gguf:"attn_q.scale,optional"`
	K    *compute.Tensor `gguf:"attn_k.scale,optional"`
	V    *compute.Tensor `gguf:"attn_v.scale,optional"`
	O    *compute.Tensor `gguf:"attn_output.scale,optional"`
	Gate *compute.Tensor `gguf:"ffn_gate.scale,optional"`
	Up   *compute.Tensor `gguf:"ffn_up.scale,optional"`
	Down *compute.Tensor `gguf:"ffn_down.scale,optional"`
}

func init() {
	register("bitnet", arch{hparams: bitnetHParams, new: func(c Config) bindable { return &BitNet{base: base{cfg: c}} }})
}

// bitnetHParams: llama.cpp's bitnet case reads only the shared keys; RoPE
// is NEOX (llama_model_rope_type).
func bitnetHParams(k *keys, c *Config) {
	c.RopeMode = compute.RopeNeox
}

func (m *BitNet) shapes(s *shapes) {
	c := &m.cfg
	s.want(m.TokenEmbd, c.NEmbd, c.NVocab)
	for _, l := range m.Layers {
		s.want(l.AttnNorm, c.NEmbd, 1)
		l.SelfAttention.shapes(s, c)
		s.want(l.AttnSubNorm, c.NEmbd, 1)
		s.want(l.FFNNorm, c.NEmbd, 1)
		l.FFN.shapes(s, c)
		s.want(l.FFNSubNorm, c.NFF, 1)
		sc := l.Scales
		for _, t := range []*compute.Tensor{sc.Q, sc.K, sc.V, sc.O, sc.Gate, sc.Up, sc.Down} {
			if t != nil && !s.describe && s.err == nil {
				s.err = &UnsupportedError{Name: t.Name, Reason: "BitNet weights with a separate .scale tensor are not supported; use a file whose ternary weights carry their scale (TQ1_0, TQ2_0)"}
			}
		}
	}
	s.want(m.OutputNorm, c.NEmbd, 1)
}

// Forward builds the graph:
//
//	x = embd[tokens]
//	per layer:  x += Wo·rmsnorm(attention(rmsnorm(x)·w_attn_norm))·w_attn_sub_norm
//	            x += Wdown·rmsnorm(silu(Wgate·h) ⊙ Wup·h)·w_ffn_sub_norm,  h = rmsnorm(x)·w_ffn_norm
//	logits = Wembd·(rmsnorm(x[out rows])·w_output_norm)
func (m *BitNet) Forward(g *compute.Graph, kv *KVCache) error {
	c := &m.cfg
	x := g.GetRows(m.TokenEmbd)
	for il, l := range m.Layers {
		a := l.SelfAttention.Forward(g, c, il, g.RMSNorm(x, l.AttnNorm, c.Eps, c.NEmbd), kv, attnOpts{subNorm: l.AttnSubNorm})
		x = g.Add(x, a)
		h := g.RMSNorm(x, l.FFNNorm, c.Eps, c.NEmbd)
		f := g.GLU(g.MatMul(l.Gate, h, nil), g.MatMul(l.Up, h, nil), compute.ActSiLU)
		x = g.Add(x, g.MatMul(l.Down, g.RMSNorm(f, l.FFNSubNorm, c.Eps, c.NFF), nil))
	}
	return g.SetLogits(g.MatMul(m.TokenEmbd, g.RMSNorm(g.SelectRows(x), m.OutputNorm, c.Eps, c.NEmbd), nil))
}
