package model

import (
	"github.com/webgguf/webgguf/compute"
)

// NomicBert is the nomic-bert architecture (nomic-embed-text-v1/v1.5), an
// encoder as llama.cpp's llm_build_bert builds it for LLM_ARCH_NOMIC_BERT:
// token + token-type row 0 embeddings (no learned positions), LayerNorm
// after the embeddings and after each residual add as bert, q, k and v
// fused into attn_qkv (bound as views: FusedQKV) and rotated with NEOX
// RoPE at rope.freq_base, non-causal attention, a SwiGLU feed-forward, no
// biases. Its result is the final hidden state of every output row, which
// the engine pools (mean pooling in nomic's files).
type NomicBert struct {
	base
	TokenEmbd  *compute.Tensor  `gguf:"token_embd"`
	TokenTypes *compute.Tensor  `gguf:"token_types,optional"`
	EmbdNorm   *compute.Tensor  `gguf:"token_embd_norm"`
	EmbdNormB  *compute.Tensor  `gguf:"token_embd_norm.bias"`
	Layers     []NomicBertLayer `gguf:"blk"`
}

// NomicBertLayer is one post-norm encoder block: the shared attention and
// gated FFN blocks, each followed by a LayerNorm with bias.
type NomicBertLayer struct {
	SelfAttention
	AttnNorm  *compute.Tensor `gguf:"attn_output_norm"`
	AttnNormB *compute.Tensor `gguf:"attn_output_norm.bias"`
	FFN
	LayerNorm  *compute.Tensor `gguf:"layer_output_norm"`
	LayerNormB *compute.Tensor `gguf:"layer_output_norm.bias"`
	// QKVBias and OutputBias are bound only to refuse them: llama.cpp
	// adds them where a file has them, and nomic's files have none.
	QKVBias    *compute.Tensor `gguf:"attn_qkv.bias,optional"`
	OutputBias *compute.Tensor `gguf:"attn_output.bias,optional"`
}

func init() {
	register("nomic-bert", arch{hparams: nomicBertHParams, new: func(c Config) bindable { return &NomicBert{base: base{cfg: c}} },
		fused: []Fusion{FusedQKV()}})
}

// nomicBertHParams reads the BERT family's keys (encoderHParams) with
// NEOX RoPE on every layer (the shared default: rope.freq_base, n_rot the
// head width). Rank pooling is refused: llama.cpp's nomic-bert has no
// classifier head to score with.
func nomicBertHParams(k *keys, c *Config) {
	encoderHParams(k, c)
	c.RopeMode = compute.RopeNeox
	if c.Pooling == PoolingRank {
		k.fail("{arch}.pooling_type", "rank pooling needs a classifier head, which nomic-bert has not")
	}
}

func (m *NomicBert) shapes(s *shapes) {
	c := &m.cfg
	s.want(m.TokenEmbd, c.NEmbd, c.NVocab)
	s.want(m.TokenTypes, c.NEmbd, c.NTokenTypes) // only row 0 is read
	s.want(m.EmbdNorm, c.NEmbd, 1)
	s.want(m.EmbdNormB, c.NEmbd, 1)
	for _, l := range m.Layers {
		for _, t := range []*compute.Tensor{l.QKVBias, l.OutputBias, l.QBias, l.KBias, l.VBias, l.QNorm, l.KNorm} {
			// Biases and q/k norms are optional in the shared attention
			// block; a nomic-bert file with any of them is not one this
			// graph computes as llama.cpp does, so it is refused by name.
			if t != nil && !s.describe && s.err == nil {
				s.err = &UnsupportedError{Name: t.Name, Reason: "nomic-bert is implemented without attention biases or q/k norms"}
			}
		}
		l.SelfAttention.shapes(s, c)
		s.want(l.AttnNorm, c.NEmbd, 1)
		s.want(l.AttnNormB, c.NEmbd, 1)
		l.FFN.shapes(s, c)
		s.want(l.LayerNorm, c.NEmbd, 1)
		s.want(l.LayerNormB, c.NEmbd, 1)
	}
}

// Forward builds the graph:
//
//	x = LN(embd[tokens] + types[0])
//	per layer:  x = LN(x + attention(x))          (q, k NEOX-rotated)
//	            x = LN(x + Wdown·(silu(Wgate·x) ⊙ Wup·x))
//	result = x[out rows]
func (m *NomicBert) Forward(g *compute.Graph, kv *KVCache) error {
	c := &m.cfg
	ln := func(x, w, b *compute.Tensor) *compute.Tensor { return g.LayerNorm(x, w, b, c.Eps, c.NEmbd) }
	x := g.GetRows(m.TokenEmbd)
	if m.TokenTypes != nil {
		x = g.Add(x, g.TypeRows(m.TokenTypes))
	}
	x = ln(x, m.EmbdNorm, m.EmbdNormB)
	for il, l := range m.Layers {
		x = ln(g.Add(l.SelfAttention.Forward(g, c, il, x, kv, attnOpts{}), x), l.AttnNorm, l.AttnNormB)
		x = ln(g.Add(l.FFN.Forward(g, x, compute.ActSiLU), x), l.LayerNorm, l.LayerNormB)
	}
	return g.SetLogits(g.SelectRows(x))
}
