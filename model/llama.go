package model

import "github.com/webgguf/webgguf/compute"

// Llama is the llama architecture (Llama 2/3, TinyLlama, SmolLM, Mistral
// without sliding window): adjacent-pair RoPE; biases and q/k norms absent.
type Llama struct{ Decoder }

func init() {
	register("llama", func(c Config) bindable { return &Llama{Decoder{cfg: c, ropeMode: compute.RopeNormal}} })
}
