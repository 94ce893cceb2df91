package model

import (
	"strconv"

	"github.com/webgguf/webgguf/compute"
)

// The shared blocks. Every architecture builds its layers from them, so
// that the nodes of an attention or feed-forward block always come in one
// canonical order (llama.cpp's build_norm / build_attn / build_ffn) and
// the GPU backend's fusions find them whatever the architecture:
//
//	attention: MatMul q, MatMul k, MatMul v, [RMSNorm q, RMSNorm k],
//	           [Rope q, Rope k], KVWrite, Attention, MatMul output
//	FFN:       MatMul gate, MatMul up, GLU, MatMul down

// SelfAttention is a layer's attention weights. Biases and q/k norms are
// optional here; an architecture that requires them says so in its shapes
// method.
type SelfAttention struct {
	Q      *compute.Tensor `gguf:"attn_q"`
	K      *compute.Tensor `gguf:"attn_k"`
	V      *compute.Tensor `gguf:"attn_v"`
	QBias  *compute.Tensor `gguf:"attn_q.bias,optional"`
	KBias  *compute.Tensor `gguf:"attn_k.bias,optional"`
	VBias  *compute.Tensor `gguf:"attn_v.bias,optional"`
	QNorm  *compute.Tensor `gguf:"attn_q_norm,optional"`
	KNorm  *compute.Tensor `gguf:"attn_k_norm,optional"`
	Output *compute.Tensor `gguf:"attn_output"`
}

// shapes declares the attention weights' shapes for config c.
func (a *SelfAttention) shapes(s *shapes, c *Config) {
	q, kv := c.NHead*c.HeadDim, c.NHeadKV*c.HeadDim
	s.want(a.Q, c.NEmbd, q)
	s.want(a.K, c.NEmbd, kv)
	s.want(a.V, c.NEmbd, kv)
	s.want(a.QBias, q, 1)
	s.want(a.KBias, kv, 1)
	s.want(a.VBias, kv, 1)
	s.want(a.QNorm, c.HeadDim, 1)
	s.want(a.KNorm, c.HeadDim, 1)
	s.want(a.Output, q, c.NEmbd)
}

// needBiases requires the q, k and v biases of layer il.
func (a *SelfAttention) needBiases(s *shapes, il int) {
	s.need(a.QBias, layerName(il, "attn_q.bias"))
	s.need(a.KBias, layerName(il, "attn_k.bias"))
	s.need(a.VBias, layerName(il, "attn_v.bias"))
}

// needQKNorms requires the per-head q and k norms of layer il.
func (a *SelfAttention) needQKNorms(s *shapes, il int) {
	s.need(a.QNorm, layerName(il, "attn_q_norm.weight"))
	s.need(a.KNorm, layerName(il, "attn_k_norm.weight"))
}

// attnOpts are an architecture's choices that the attention block does
// not read from the layer's config.
type attnOpts struct {
	// freqs divides the rotary frequencies (rope_freqs), or nil.
	freqs *compute.Tensor
	// subNorm, when set, RMS-norms the attention output before Wo
	// (BitNet's attn_sub_norm).
	subNorm *compute.Tensor
}

// Forward is the attention block on the normed input h of layer il:
//
//	q = Wq·h + bq,  k = Wk·h + bk,  v = Wv·h + bv
//	q = qnorm(q), k = knorm(k)          (per head, where present)
//	q = rope(q), k = rope(k)            (where the layer rotates)
//	cache ← k, v;  return Wo·attention(q, cache)
func (a *SelfAttention) Forward(g *compute.Graph, c *Config, il int, h *compute.Tensor, kv *KVCache, o attnOpts) *compute.Tensor {
	lc := c.Layers[il]
	ap := compute.AttnParams{NHead: c.NHead, NHeadKV: c.NHeadKV, HeadDim: c.HeadDim, Scale: lc.AttnScale,
		Window: lc.Window, Softcap: lc.AttnSoftcap, NonCausal: c.NonCausal}
	q := g.MatMul(a.Q, h, a.QBias)
	k := g.MatMul(a.K, h, a.KBias)
	v := g.MatMul(a.V, h, a.VBias)
	if a.QNorm != nil {
		q = g.RMSNorm(q, a.QNorm, c.Eps, c.HeadDim)
	}
	if a.KNorm != nil {
		k = g.RMSNorm(k, a.KNorm, c.Eps, c.HeadDim)
	}
	if lc.Rope {
		rope := func(n int) compute.RopeParams {
			return compute.RopeParams{Mode: c.RopeMode, NHeads: n, HeadDim: c.HeadDim, NRot: c.NRot, Base: lc.RopeBase, Scale: lc.RopeScale,
				AttnFactor: c.RopeAttnFactor}
		}
		q, k = g.Rope(q, rope(c.NHead), o.freqs), g.Rope(k, rope(c.NHeadKV), o.freqs)
	}
	g.KVWrite(k, v, kv.K[il], kv.V[il], ap)
	att := g.Attention(q, kv.K[il], kv.V[il], ap)
	if o.subNorm != nil {
		att = g.RMSNorm(att, o.subNorm, c.Eps, c.NHead*c.HeadDim)
	}
	return g.MatMul(a.Output, att, nil)
}

// FFN is a gated feed-forward block: Wdown·(act(Wgate·h) ⊙ Wup·h).
type FFN struct {
	Gate *compute.Tensor `gguf:"ffn_gate"`
	Up   *compute.Tensor `gguf:"ffn_up"`
	Down *compute.Tensor `gguf:"ffn_down"`
}

func (f *FFN) shapes(s *shapes, c *Config) {
	s.want(f.Gate, c.NEmbd, c.NFF)
	s.want(f.Up, c.NEmbd, c.NFF)
	s.want(f.Down, c.NFF, c.NEmbd)
}

// Forward is the gated FFN on the normed input h.
func (f *FFN) Forward(g *compute.Graph, h *compute.Tensor, act compute.ActFunc) *compute.Tensor {
	return g.MatMul(f.Down, g.GLU(g.MatMul(f.Gate, h, nil), g.MatMul(f.Up, h, nil), act), nil)
}

// Output is the final norm and the LM head; the head falls back to the
// token embedding (tied output).
type Output struct {
	Norm *compute.Tensor `gguf:"output_norm"`
	Head *compute.Tensor `gguf:"output,alt=token_embd"`
}

func (o *Output) shapes(s *shapes, c *Config) {
	s.want(o.Norm, c.NEmbd, 1)
	s.want(o.Head, c.NEmbd, c.NVocab)
}

// Forward keeps the output rows of x, norms them and returns the logits.
func (o *Output) Forward(g *compute.Graph, c *Config, x *compute.Tensor) *compute.Tensor {
	return g.MatMul(o.Head, g.RMSNorm(g.SelectRows(x), o.Norm, c.Eps, c.NEmbd), nil)
}

// layerName is the GGUF name of layer il's tensor name.
func layerName(il int, name string) string { return "blk." + itoa(il) + "." + name }

func itoa(i int) string { return strconv.Itoa(i) }
