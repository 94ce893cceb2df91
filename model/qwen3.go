package model

import (
	"fmt"

	"github.com/webgguf/webgguf/compute"
)

// Qwen3 is the qwen3 architecture: per-head RMS norms on q and k before
// NEOX RoPE, head_dim independent of n_embd/n_head, no biases.
type Qwen3 struct{ Decoder }

func init() {
	register("qwen3", func(c Config) bindable { return &Qwen3{Decoder{cfg: c, ropeMode: compute.RopeNeox}} })
}

func (m *Qwen3) validate() error {
	for i, l := range m.Layers {
		names := func(j int) string {
			return fmt.Sprintf("blk.%d.%s.weight", i, []string{"attn_q_norm", "attn_k_norm"}[j])
		}
		if err := require(names, l.QNorm, l.KNorm); err != nil {
			return err
		}
	}
	return m.Decoder.validate()
}
