// Package model declares the supported architectures as Go structs whose
// fields are bound to GGUF tensors by struct tags (the ollama style), and
// builds their forward pass as a compute.Graph.
//
// An architecture registers itself by its general.architecture name
// (llama, qwen2, qwen3, gemma3, gemma2, smollm3, phi3, bitnet, and the
// bert and nomic-bert encoders; Architectures lists them). Load reads the
// hyperparameters, binds and shape-checks every tensor, and returns a
// Model; an unknown architecture, a missing or malformed key, a missing
// tensor or a wrong shape is a typed error naming it (UnknownArchError,
// KeyError, MissingTensorError, ShapeError), and a layout an architecture
// knows but does not implement an UnsupportedError (BitNet's separate
// .scale tensors).
//
// Tags: `gguf:"attn_q"` binds "<prefix>attn_q.weight"; a name containing a
// dot ("attn_q.bias") is taken literally; ",optional" allows absence;
// ",alt=token_embd" falls back to another tensor (tied output). A slice of
// structs tagged `gguf:"blk"` is bound once per layer with prefix "blk.N.".
//
// An embedding model (Config.Embeddings: bert, nomic-bert) returns the
// final hidden states of its output rows instead of logits; Config.Pooling
// ({arch}.pooling_type) says how the engine pools them into a sequence
// embedding, and Config.NonCausal that the whole sequence is one
// micro-batch.
package model
