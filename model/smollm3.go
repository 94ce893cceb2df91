package model

import (
	"fmt"

	"github.com/webgguf/webgguf/compute"
)

// SmolLM3 is the smollm3 architecture (SmolLM3-3B), as llama.cpp's
// src/models/smollm3.cpp builds it: llama's blocks and adjacent-pair RoPE,
// except that every fourth layer (il+1 a multiple of 4) has no rotary
// embedding at all (NoPE); tied output unless the file has output.weight.
type SmolLM3 struct {
	base
	TokenEmbd *compute.Tensor `gguf:"token_embd"`
	Layers    []LlamaLayer    `gguf:"blk"`
	Output
}

// smolLM3NoRopeStep is llama.cpp's n_no_rope_layer_step for smollm3: a
// constant of its loader, not a GGUF key (the converter writes none).
const smolLM3NoRopeStep = 4

func init() {
	register("smollm3", arch{hparams: smolLM3HParams, new: func(c Config) bindable { return &SmolLM3{base: base{cfg: c}} }})
}

// smolLM3HParams turns RoPE off on the layers where (il+1) % 4 == 0 and
// requires full rotary width, which llama.cpp's graph asserts.
func smolLM3HParams(k *keys, c *Config) {
	if c.NRot != c.HeadDim {
		k.fail("{arch}.rope.dimension_count", fmt.Sprintf("%d differs from the head width %d (smollm3 rotates whole heads)", c.NRot, c.HeadDim))
	}
	for il := range c.Layers {
		c.Layers[il].Rope = (il+1)%smolLM3NoRopeStep != 0
	}
}

func (m *SmolLM3) shapes(s *shapes) {
	c := &m.cfg
	s.want(m.TokenEmbd, c.NEmbd, c.NVocab)
	for _, l := range m.Layers {
		l.shapes(s, c)
	}
	m.Output.shapes(s, c)
}

// Forward builds llama's graph; SelfAttention skips RoPE on the NoPE
// layers (LayerConfig.Rope).
func (m *SmolLM3) Forward(g *compute.Graph, kv *KVCache) error {
	return llamaForward(g, kv, &m.cfg, m.TokenEmbd, m.Layers, &m.Output, attnOpts{})
}
