package model

import (
	"math"

	"github.com/webgguf/webgguf/compute"
)

// Gemma3 is the gemma3 architecture (Gemma 3 270M-27B, text part), as
// llama.cpp's src/models/gemma3.cpp builds it: embeddings × √n_embd;
// RMSNorm weights used as stored (the converter already added 1); per-head
// q/k norms before NEOX RoPE; post-attention and post-FFN norms on the
// branch before the residual add; GeGLU; sliding-window attention on five
// layers of six with RoPE base 10 000 there and rope.freq_base on the
// global layers; tied output.
type Gemma3 struct {
	base
	TokenEmbd *compute.Tensor `gguf:"token_embd"`
	Layers    []Gemma3Layer   `gguf:"blk"`
	Output
}

// Gemma3Layer is one Gemma 3 block.
type Gemma3Layer struct {
	AttnNorm *compute.Tensor `gguf:"attn_norm"`
	SelfAttention
	PostAttnNorm *compute.Tensor `gguf:"post_attention_norm"`
	FFNNorm      *compute.Tensor `gguf:"ffn_norm"`
	FFN
	PostFFNNorm *compute.Tensor `gguf:"post_ffw_norm"`
}

// shapes states the layer's tensor shapes (Gemma 2 and 3; Gemma 3 also
// checks its q/k norms).
func (l *Gemma3Layer) shapes(s *shapes, c *Config) {
	s.want(l.AttnNorm, c.NEmbd, 1)
	l.SelfAttention.shapes(s, c)
	s.want(l.PostAttnNorm, c.NEmbd, 1)
	s.want(l.FFNNorm, c.NEmbd, 1)
	l.FFN.shapes(s, c)
	s.want(l.PostFFNNorm, c.NEmbd, 1)
}

// forward is one post-norm layer (Gemma 2 and 3):
//
//	x += rmsnorm(attention(rmsnorm(x)·w_attn_norm))·w_post_attn
//	x += rmsnorm(ffn_geglu(rmsnorm(x)·w_ffn_norm))·w_post_ffw
func (l *Gemma3Layer) forward(g *compute.Graph, c *Config, il int, x *compute.Tensor, kv *KVCache) *compute.Tensor {
	norm := func(x, w *compute.Tensor) *compute.Tensor { return g.RMSNorm(x, w, c.Eps, c.NEmbd) }
	x = g.Add(x, norm(l.SelfAttention.Forward(g, c, il, norm(x, l.AttnNorm), kv, attnOpts{}), l.PostAttnNorm))
	return g.Add(x, norm(l.FFN.Forward(g, norm(x, l.FFNNorm), compute.ActGELU), l.PostFFNNorm))
}

func init() {
	register("gemma3", arch{hparams: gemma3HParams, new: func(c Config) bindable { return &Gemma3{base: base{cfg: c}} }})
}

// gemma3HParams reads llama.cpp's gemma3 hyperparameters: the sliding
// window on layers il with il % period < period-1 (period 6 unless the
// file has attention.sliding_window_pattern, a period or one bool a
// layer), RoPE base rope.freq_base_swa (default 10 000) and no RoPE
// scaling on those layers, query scale 1/sqrt(key_length) except for the
// 62-layer 27B (1/sqrt(n_embd/n_head)).
func gemma3HParams(k *keys, c *Config) {
	c.RopeMode = compute.RopeNeox
	window := k.uint("{arch}.attention.sliding_window", 0, 0, 1<<24)
	swa := swaLayers(k, c, 6)
	baseSWA := k.float("{arch}.rope.freq_base_swa", 10000)
	scale := float32(1 / math.Sqrt(float64(c.HeadDim)))
	if c.NLayer == 62 {
		scale = float32(1 / math.Sqrt(float64(c.NEmbd/c.NHead)))
	}
	for il := range c.Layers {
		l := &c.Layers[il]
		l.AttnScale = scale
		if swa[il] && window > 0 {
			l.Window, l.RopeBase, l.RopeScale = window, baseSWA, 1
		}
	}
}

func (m *Gemma3) shapes(s *shapes) {
	c := &m.cfg
	s.want(m.TokenEmbd, c.NEmbd, c.NVocab)
	for il, l := range m.Layers {
		l.needQKNorms(s, il)
		l.shapes(s, c)
	}
	m.Output.shapes(s, c)
}

// Forward builds the graph:
//
//	x = embd[tokens] · √n_embd
//	per layer:  x += rmsnorm(attention(rmsnorm(x)·w_attn_norm))·w_post_attn
//	            x += rmsnorm(ffn_geglu(rmsnorm(x)·w_ffn_norm))·w_post_ffw
//	logits = Woutput·(rmsnorm(x[out rows])·w_output_norm)
func (m *Gemma3) Forward(g *compute.Graph, kv *KVCache) error {
	c := &m.cfg
	x := g.Scale(g.GetRows(m.TokenEmbd), float32(math.Sqrt(float64(c.NEmbd))))
	for il, l := range m.Layers {
		x = l.forward(g, c, il, x, kv)
	}
	return g.SetLogits(m.Output.Forward(g, c, x))
}
