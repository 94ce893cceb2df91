// Package gen writes random-weight GGUF models (architectures llama, qwen2,
// qwen3, gemma3, gemma2, smollm3, phi3 and bitnet, the last in the ternary
// TQ1_0 / TQ2_0 types too, and the bert and nomic-bert encoders) at any
// shape, with tokenizer metadata copied from a vocab GGUF and weights
// quantized by package gguf's ggml-compatible quantizers. The tensor list and shapes are package model's
// (model.Describe); gen adds the metadata keys, the storage types and the
// values.
//
// Tensor names, shapes and metadata keys follow what llama.cpp's converter
// and llama-quantize write (see the fixture models in testdata/models), so
// llama.cpp loads the files. Weights are deterministic functions of the seed
// and the tensor name (one random stream per row, so generation is
// parallel and streaming: memory stays at a few batches of rows whatever
// the model size).
//
// Usage:
//
//	cfg, _ := gen.Preset("llama-3.2-1b")
//	cfg.Type, cfg.Vocab = "q4_k_m", "testdata/models/vocab-llama3-bpe.gguf"
//	err := gen.Generate(w, cfg)
package gen
