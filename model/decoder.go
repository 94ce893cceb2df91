package model

import (
	"math"

	"github.com/webgguf/webgguf/compute"
)

// Decoder is the pre-norm decoder-only transformer shared by llama, qwen2
// and qwen3: RMS norms, rotary attention with GQA, SwiGLU feed-forward.
// The architectures differ in which optional tensors they require and in
// the RoPE mode.
type Decoder struct {
	TokenEmbd  *compute.Tensor `gguf:"token_embd"`
	Layers     []Layer         `gguf:"blk"`
	OutputNorm *compute.Tensor `gguf:"output_norm"`
	// Output falls back to the token embedding: tied output.
	Output *compute.Tensor `gguf:"output,alt=token_embd"`
	// RopeFreqs divides the rotary frequencies (Llama 3.1 long-context
	// scaling, written by the converter as a tensor).
	RopeFreqs *compute.Tensor `gguf:"rope_freqs,optional"`

	cfg      Config
	ropeMode compute.RopeMode
	weights  []*compute.Tensor
}

// Layer is one transformer block.
type Layer struct {
	AttnNorm *compute.Tensor `gguf:"attn_norm"`
	Q        *compute.Tensor `gguf:"attn_q"`
	K        *compute.Tensor `gguf:"attn_k"`
	V        *compute.Tensor `gguf:"attn_v"`
	QBias    *compute.Tensor `gguf:"attn_q.bias,optional"`
	KBias    *compute.Tensor `gguf:"attn_k.bias,optional"`
	VBias    *compute.Tensor `gguf:"attn_v.bias,optional"`
	QNorm    *compute.Tensor `gguf:"attn_q_norm,optional"`
	KNorm    *compute.Tensor `gguf:"attn_k_norm,optional"`
	Output   *compute.Tensor `gguf:"attn_output"`
	FFNNorm  *compute.Tensor `gguf:"ffn_norm"`
	Gate     *compute.Tensor `gguf:"ffn_gate"`
	Up       *compute.Tensor `gguf:"ffn_up"`
	Down     *compute.Tensor `gguf:"ffn_down"`
}

// Config returns the hyperparameters.
func (m *Decoder) Config() Config { return m.cfg }

// Weights lists every weight once.
func (m *Decoder) Weights() []*compute.Tensor { return m.weights }

func (m *Decoder) setWeights(w []*compute.Tensor) { m.weights = w }

// validate checks every tensor's shape against the hyperparameters.
func (m *Decoder) validate() error {
	c := m.cfg
	q, kv := c.NHead*c.HeadDim, c.NHeadKV*c.HeadDim
	checks := []error{
		want(m.TokenEmbd, c.NEmbd, c.NVocab),
		want(m.OutputNorm, c.NEmbd, 1),
		want(m.Output, c.NEmbd, c.NVocab),
		want(m.RopeFreqs, c.NRot/2, 1),
	}
	for _, l := range m.Layers {
		checks = append(checks,
			want(l.AttnNorm, c.NEmbd, 1),
			want(l.Q, c.NEmbd, q), want(l.K, c.NEmbd, kv), want(l.V, c.NEmbd, kv),
			want(l.QBias, q, 1), want(l.KBias, kv, 1), want(l.VBias, kv, 1),
			want(l.QNorm, c.HeadDim, 1), want(l.KNorm, c.HeadDim, 1),
			want(l.Output, q, c.NEmbd),
			want(l.FFNNorm, c.NEmbd, 1),
			want(l.Gate, c.NEmbd, c.NFF), want(l.Up, c.NEmbd, c.NFF), want(l.Down, c.NFF, c.NEmbd))
	}
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	return nil
}

// require reports the first nil tensor among the named ones.
func require(prefixName func(int) string, ts ...*compute.Tensor) error {
	for i, t := range ts {
		if t == nil {
			return &MissingTensorError{Name: prefixName(i)}
		}
	}
	return nil
}

// Forward builds the graph:
//
//	x = embd[tokens]
//	per layer:  h = rmsnorm(x)·w_attn_norm
//	            q = rope(qnorm(Wq·h + bq)), k = rope(knorm(Wk·h + bk)), v = Wv·h + bv
//	              (rope frequencies divided by rope_freqs where present)
//	            cache ← k, v;  x += Wo·attention(q, cache)
//	            h = rmsnorm(x)·w_ffn_norm;  x += Wdown·(silu(Wgate·h) ⊙ Wup·h)
//	logits = Woutput·(rmsnorm(x[out rows])·w_output_norm)
func (m *Decoder) Forward(g *compute.Graph, kv *KVCache) error {
	c := m.cfg
	ap := compute.AttnParams{NHead: c.NHead, NHeadKV: c.NHeadKV, HeadDim: c.HeadDim, Scale: float32(1 / math.Sqrt(float64(c.HeadDim)))}
	rope := func(n int) compute.RopeParams {
		return compute.RopeParams{Mode: m.ropeMode, NHeads: n, HeadDim: c.HeadDim, NRot: c.NRot, Base: c.RopeBase, Scale: c.RopeScale}
	}
	x := g.GetRows(m.TokenEmbd)
	for i, l := range m.Layers {
		h := g.RMSNorm(x, l.AttnNorm, c.Eps, c.NEmbd)
		q := g.MatMul(l.Q, h, l.QBias)
		k := g.MatMul(l.K, h, l.KBias)
		v := g.MatMul(l.V, h, l.VBias)
		if l.QNorm != nil {
			q = g.RMSNorm(q, l.QNorm, c.Eps, c.HeadDim)
		}
		if l.KNorm != nil {
			k = g.RMSNorm(k, l.KNorm, c.Eps, c.HeadDim)
		}
		q, k = g.Rope(q, rope(c.NHead), m.RopeFreqs), g.Rope(k, rope(c.NHeadKV), m.RopeFreqs)
		g.KVWrite(k, v, kv.K[i], kv.V[i], ap)
		x = g.Add(x, g.MatMul(l.Output, g.Attention(q, kv.K[i], kv.V[i], ap), nil))

		h = g.RMSNorm(x, l.FFNNorm, c.Eps, c.NEmbd)
		x = g.Add(x, g.MatMul(l.Down, g.SiluMul(g.MatMul(l.Gate, h, nil), g.MatMul(l.Up, h, nil)), nil))
	}
	x = g.RMSNorm(g.SelectRows(x), m.OutputNorm, c.Eps, c.NEmbd)
	return g.SetLogits(g.MatMul(m.Output, x, nil))
}
