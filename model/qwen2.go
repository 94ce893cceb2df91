package model

import (
	"fmt"

	"github.com/webgguf/webgguf/compute"
)

// Qwen2 is the qwen2 architecture: the llama block with q/k/v biases and
// NEOX RoPE.
type Qwen2 struct{ Decoder }

func init() {
	register("qwen2", func(c Config) bindable { return &Qwen2{Decoder{cfg: c, ropeMode: compute.RopeNeox}} })
}

func (m *Qwen2) validate() error {
	for i, l := range m.Layers {
		names := func(j int) string { return fmt.Sprintf("blk.%d.%s.bias", i, []string{"attn_q", "attn_k", "attn_v"}[j]) }
		if err := require(names, l.QBias, l.KBias, l.VBias); err != nil {
			return err
		}
	}
	return m.Decoder.validate()
}
