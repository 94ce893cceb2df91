package model

import (
	"math"

	"github.com/webgguf/webgguf/compute"
)

// Gemma2 is the gemma2 architecture (Gemma 2 2B, 9B, 27B), as llama.cpp's
// src/models/gemma2-iswa.cpp builds it: Gemma 3's blocks without q/k norms
// (embeddings × √n_embd, post-attention and post-FFN norms, GeGLU, NEOX
// RoPE, tied output), plus soft-capping of the attention scores and of the
// final logits, and a sliding window on every other layer.
type Gemma2 struct {
	base
	TokenEmbd *compute.Tensor `gguf:"token_embd"`
	Layers    []Gemma3Layer   `gguf:"blk"`
	Output
}

func init() {
	register("gemma2", arch{hparams: gemma2HParams, new: func(c Config) bindable { return &Gemma2{base: base{cfg: c}} }})
}

// gemma2HParams reads llama.cpp's gemma2 hyperparameters:
//   - the sliding window attention.sliding_window (default 4096) on the
//     layers il with il % period < period-1, period 2 (the even layers)
//     unless attention.sliding_window_pattern says otherwise; RoPE base
//     rope.freq_base_swa there (default rope.freq_base);
//   - attn_logit_softcapping (default 50) on every layer's scaled scores
//     and final_logit_softcapping (default 30) on the logits;
//   - query scale 1/sqrt(key_length), except 1/sqrt(n_embd/n_head) for the
//     46-layer 27B (query_pre_attn_scalar 144 there, not head_dim 128).
func gemma2HParams(k *keys, c *Config) {
	c.RopeMode = compute.RopeNeox
	window := k.uint("{arch}.attention.sliding_window", 4096, 0, 1<<24)
	swa := swaLayers(k, c, 2)
	baseSWA := k.float("{arch}.rope.freq_base_swa", float64(c.RopeBase))
	attnCap := k.float("{arch}.attn_logit_softcapping", 50)
	c.FinalSoftcap = k.float("{arch}.final_logit_softcapping", 30)
	scale := float32(1 / math.Sqrt(float64(c.HeadDim)))
	if c.NLayer == 46 {
		scale = float32(1 / math.Sqrt(float64(c.NEmbd/c.NHead)))
	}
	for il := range c.Layers {
		l := &c.Layers[il]
		l.AttnScale, l.AttnSoftcap = scale, attnCap
		if swa[il] {
			// llama.cpp picks the layer's RoPE base from the pattern
			// alone; a window of 0 would mask everything there, so it is
			// read as full attention instead.
			l.Window, l.RopeBase = window, baseSWA
		}
	}
}

func (m *Gemma2) shapes(s *shapes) {
	c := &m.cfg
	s.want(m.TokenEmbd, c.NEmbd, c.NVocab)
	for _, l := range m.Layers {
		l.shapes(s, c)
	}
	m.Output.shapes(s, c)
}

// Forward builds the graph:
//
//	x = embd[tokens] · √n_embd
//	per layer:  x += rmsnorm(attention(rmsnorm(x)·w_attn_norm))·w_post_attn
//	            x += rmsnorm(ffn_geglu(rmsnorm(x)·w_ffn_norm))·w_post_ffw
//	logits = cap·tanh(Woutput·(rmsnorm(x[out rows])·w_output_norm) / cap)
//
// with the attention scores soft-capped as the layer config says.
func (m *Gemma2) Forward(g *compute.Graph, kv *KVCache) error {
	c := &m.cfg
	x := g.Scale(g.GetRows(m.TokenEmbd), float32(math.Sqrt(float64(c.NEmbd))))
	for il, l := range m.Layers {
		x = l.forward(g, c, il, x, kv) // gemma3.go
	}
	logits := m.Output.Forward(g, c, x)
	if c.FinalSoftcap > 0 {
		logits = g.Softcap(logits, c.FinalSoftcap)
	}
	return g.SetLogits(logits)
}
