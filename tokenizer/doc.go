// Package tokenizer turns text into token ids and back exactly as llama.cpp
// does, for the vocabularies stored in GGUF files.
//
// Build a Tokenizer with FromGGUF (or New from a Vocab read by
// VocabFromGGUF), then:
//
//	ids, err := tok.Encode(text, addSpecial, parseSpecial) // llama_tokenize
//	text := tok.Decode(ids)                                 // common_detokenize(ids, false)
//	text = tok.Detokenize(ids, removeSpecial, unparseSpecial) // llama_detokenize
//	piece := tok.Piece(id, special)                         // llama_token_to_piece
//	d := tok.NewDecoder(false); s := d.Push(id)             // streaming, holds back partial UTF-8
//
// Supported tokenizer.ggml.model values: "llama" (SentencePiece: score-driven
// bigram merges, ▁ for spaces, space prefix, <0xXX> byte fallback) and
// "gpt2" (byte-level BPE with merge ranks). Supported tokenizer.ggml.pre
// values: none/"default", llama3/llama-bpe (and falcon3, pixtral, lfm2, …),
// dbrx, smaug-bpe, chatglm-bpe/glm4, qwen2 (and deepseek-r1-qwen, stablelm2,
// hunyuan, megrez, …), gpt-2 (and phi-2, mpt, olmo, jais, roberta-bpe, …),
// starcoder, refact, command-r, smollm, codeshell, exaone, minerva-7b,
// falcon, gpt-4o/llama4, tekken, deepseek-coder, poro-chat, bloom,
// gpt3-finnish, viking. Others (deepseek-llm, deepseek-v3, chameleon, …) give
// an *UnsupportedError, as do the t5/bert/rwkv models.
//
// The algorithms follow llama.cpp's llama-vocab.cpp and unicode.cpp,
// quirks included: its hand-written GPT-2/Llama-3 splitters, the
// "collapsed" std::regex behaviour of the other regexes (non-ASCII letters
// are neither upper- nor lower-case, non-ASCII whitespace is \v), its
// special-token partition (longest text first, lstrip/rstrip), its
// text-based control-token detection, and its detokenizer clean-up passes.
// Character classes come from Go's unicode tables (Unicode 15.0), which
// llama.cpp's generated tables match for assigned code points.
//
// Correctness is checked against llama.cpp: every tokenization vector of
// the fixtures in testdata/ref, and differential tests that stream
// thousands of random strings through llama.cpp itself (scripts/oracle).
package tokenizer
