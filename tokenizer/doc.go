// Package tokenizer turns text into token ids and back exactly as llama.cpp
// does, for the vocabularies stored in GGUF files: SentencePiece-style
// (tokenizer.ggml.model "llama") and byte-level BPE ("gpt2") with the
// pre-tokenizer named by tokenizer.ggml.pre.
//
// Build a Tokenizer with FromGGUF (or New from a Vocab), then Encode text and
// Decode ids; Decoder detokenizes a stream of ids, holding back incomplete
// UTF-8. The algorithms follow llama.cpp's llama-vocab.cpp and unicode.cpp
// (including their quirks) and are checked against llama.cpp fixtures and
// against llama.cpp itself through scripts/oracle.
package tokenizer
