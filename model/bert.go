package model

import (
	"math"

	"github.com/webgguf/webgguf/compute"
)

// Bert is the bert architecture (BERT, bge, all-MiniLM, …), an encoder as
// llama.cpp's llm_build_bert builds it: token + token-type row 0 + learned
// position embeddings, LayerNorm (with bias) after the embeddings and
// after each residual add, biases on every projection, non-causal
// attention, a GELU (tanh form) feed-forward. Its result is the final
// hidden state of every output row, which the engine pools.
type Bert struct {
	base
	TokenEmbd  *compute.Tensor `gguf:"token_embd"`
	TokenTypes *compute.Tensor `gguf:"token_types,optional"`
	PosEmbd    *compute.Tensor `gguf:"position_embd"`
	EmbdNorm   *compute.Tensor `gguf:"token_embd_norm"`
	EmbdNormB  *compute.Tensor `gguf:"token_embd_norm.bias"`
	Layers     []BertLayer     `gguf:"blk"`
	// The classifier head of rank pooling (rerankers): tanh(Wcls·h + b),
	// then Wout·(·) + b_out; each part optional, as in llama.cpp.
	Cls     *compute.Tensor `gguf:"cls,optional"`
	ClsB    *compute.Tensor `gguf:"cls.bias,optional"`
	ClsOut  *compute.Tensor `gguf:"cls.output.weight,optional"`
	ClsOutB *compute.Tensor `gguf:"cls.output.bias,optional"`
}

// BertLayer is one post-norm encoder block.
type BertLayer struct {
	Q          *compute.Tensor `gguf:"attn_q"`
	QBias      *compute.Tensor `gguf:"attn_q.bias"`
	K          *compute.Tensor `gguf:"attn_k"`
	KBias      *compute.Tensor `gguf:"attn_k.bias"`
	V          *compute.Tensor `gguf:"attn_v"`
	VBias      *compute.Tensor `gguf:"attn_v.bias"`
	Output     *compute.Tensor `gguf:"attn_output"`
	OutputBias *compute.Tensor `gguf:"attn_output.bias"`
	AttnNorm   *compute.Tensor `gguf:"attn_output_norm"`
	AttnNormB  *compute.Tensor `gguf:"attn_output_norm.bias"`
	Up         *compute.Tensor `gguf:"ffn_up"`
	UpBias     *compute.Tensor `gguf:"ffn_up.bias"`
	Down       *compute.Tensor `gguf:"ffn_down"`
	DownBias   *compute.Tensor `gguf:"ffn_down.bias"`
	LayerNorm  *compute.Tensor `gguf:"layer_output_norm"`
	LayerNormB *compute.Tensor `gguf:"layer_output_norm.bias"`
}

func init() {
	register("bert", arch{hparams: bertHParams, new: func(c Config) bindable { return &Bert{base: base{cfg: c}} }})
}

// bertHParams reads what llama.cpp's LLM_ARCH_BERT case reads
// (encoderHParams); no layer rotates.
func bertHParams(k *keys, c *Config) {
	encoderHParams(k, c)
	for i := range c.Layers {
		c.Layers[i].Rope = false
		c.Layers[i].AttnScale = float32(1 / math.Sqrt(float64(c.HeadDim)))
	}
}

// encoderHParams reads the keys the BERT family shares (bert, nomic-bert):
// the LayerNorm epsilon (required), the token-type count, causal
// attention (default on, as llama.cpp's hparams default; converters write
// false) and the pooling type (default none).
func encoderHParams(k *keys, c *Config) {
	const epsKey = "{arch}.attention.layer_norm_epsilon"
	c.Eps = k.float(epsKey, 0)
	if _, ok := k.f.Value(epsKey); !ok {
		k.fail(epsKey, "missing")
	}
	c.Embeddings = true
	c.NTokenTypes = k.uint("tokenizer.ggml.token_type_count", 2, 1, 1<<16)
	c.NonCausal = !k.bool("{arch}.attention.causal", true)
	c.Pooling = Pooling(k.uint("{arch}.pooling_type", int(PoolingNone), 0, int(PoolingRank)))
}

func (m *Bert) shapes(s *shapes) {
	c := &m.cfg
	s.want(m.TokenEmbd, c.NEmbd, c.NVocab)
	s.want(m.TokenTypes, c.NEmbd, c.NTokenTypes) // only row 0 is read
	s.want(m.PosEmbd, c.NEmbd, c.NCtxTrain)
	s.want(m.EmbdNorm, c.NEmbd, 1)
	s.want(m.EmbdNormB, c.NEmbd, 1)
	s.want(m.Cls, c.NEmbd, c.NEmbd)
	s.want(m.ClsB, c.NEmbd, 1)
	if m.ClsOut != nil {
		nOut := max(m.ClsOut.Ne[1], 1) // classifier.output_labels: any count
		s.want(m.ClsOut, c.NEmbd, nOut)
		s.want(m.ClsOutB, nOut, 1)
	}
	q, kv := c.NHead*c.HeadDim, c.NHeadKV*c.HeadDim
	for _, l := range m.Layers {
		s.want(l.Q, c.NEmbd, q)
		s.want(l.QBias, q, 1)
		s.want(l.K, c.NEmbd, kv)
		s.want(l.KBias, kv, 1)
		s.want(l.V, c.NEmbd, kv)
		s.want(l.VBias, kv, 1)
		s.want(l.Output, q, c.NEmbd)
		s.want(l.OutputBias, c.NEmbd, 1)
		s.want(l.AttnNorm, c.NEmbd, 1)
		s.want(l.AttnNormB, c.NEmbd, 1)
		s.want(l.Up, c.NEmbd, c.NFF)
		s.want(l.UpBias, c.NFF, 1)
		s.want(l.Down, c.NFF, c.NEmbd)
		s.want(l.DownBias, c.NEmbd, 1)
		s.want(l.LayerNorm, c.NEmbd, 1)
		s.want(l.LayerNormB, c.NEmbd, 1)
	}
}

// Forward builds the graph:
//
//	x = LN(embd[tokens] + types[0] + pos[positions])
//	per layer:  x = LN(x + Wo·attention(Wq·x+bq, Wk·x+bk, Wv·x+bv) + bo)
//	            x = LN(x + Wdown·gelu(Wup·x + bup) + bdown)
//	result = x[out rows]
//	rank pooling: result = Wout·tanh(Wcls·x[out rows] + b) + b_out
//	              (the engine asks for the first row, [CLS])
func (m *Bert) Forward(g *compute.Graph, kv *KVCache) error {
	c := &m.cfg
	ln := func(x, w, b *compute.Tensor) *compute.Tensor { return g.LayerNorm(x, w, b, c.Eps, c.NEmbd) }
	x := g.GetRows(m.TokenEmbd)
	if m.TokenTypes != nil {
		x = g.Add(x, g.TypeRows(m.TokenTypes))
	}
	x = ln(g.Add(g.PosRows(m.PosEmbd), x), m.EmbdNorm, m.EmbdNormB)
	for il, l := range m.Layers {
		ap := compute.AttnParams{NHead: c.NHead, NHeadKV: c.NHeadKV, HeadDim: c.HeadDim, Scale: c.Layers[il].AttnScale,
			NonCausal: c.NonCausal}
		q := g.MatMul(l.Q, x, l.QBias)
		k := g.MatMul(l.K, x, l.KBias)
		v := g.MatMul(l.V, x, l.VBias)
		g.KVWrite(k, v, kv.K[il], kv.V[il], ap)
		a := g.MatMul(l.Output, g.Attention(q, kv.K[il], kv.V[il], ap), l.OutputBias)
		x = ln(g.Add(a, x), l.AttnNorm, l.AttnNormB)
		f := g.MatMul(l.Down, g.Act(g.MatMul(l.Up, x, l.UpBias), compute.ActGELU), l.DownBias)
		x = ln(g.Add(f, x), l.LayerNorm, l.LayerNormB)
	}
	h := g.SelectRows(x)
	if c.Pooling == PoolingRank {
		if m.Cls != nil {
			h = g.Softcap(g.MatMul(m.Cls, h, m.ClsB), 1) // 1·tanh(x/1)
		}
		if m.ClsOut != nil {
			h = g.MatMul(m.ClsOut, h, m.ClsOutB)
		}
	}
	return g.SetLogits(h)
}
