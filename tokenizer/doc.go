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
// bigram merges, ▁ for spaces, space prefix, <0xXX> byte fallback),
// "gpt2" (byte-level BPE with merge ranks) and "bert" (WordPiece: BERT's
// normalizer with llama.cpp's own NFD, lowercase and category tables,
// generated into wpm_tables.go by internal/wpmgen; greedy longest match;
// [CLS]/[SEP] added with addSpecial). Supported tokenizer.ggml.pre
// values: none/"default", llama3/llama-bpe (and falcon3, pixtral, lfm2, …),
// dbrx, smaug-bpe, chatglm-bpe/glm4, qwen2 (and deepseek-r1-qwen, stablelm2,
// hunyuan, megrez, …), gpt-2 (and phi-2, mpt, olmo, jais, roberta-bpe, …),
// starcoder, refact, command-r, smollm, codeshell, exaone, minerva-7b,
// falcon, gpt-4o/llama4, tekken, deepseek-llm, deepseek-coder, poro-chat,
// bloom, gpt3-finnish, viking. Others (deepseek-v3, chameleon, …) give an
// *UnsupportedError, as do the t5/rwkv models. The families of the
// model package are all covered: Phi-3/3.5 and Gemma 2/3 use SentencePiece
// (which has no pre-tokenizer), Phi-4-mini gpt-4o, SmolLM3 (Llama 3's
// tokenizer) and Llama 3 llama-bpe, SmolLM2 smollm, Qwen2/3 qwen2.
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
// the fixtures in testdata/ref (Llama 2, Phi-3, Llama 3, Qwen3, GPT-2,
// DeepSeek-Coder, DeepSeek-LLM and bge WordPiece vocabularies), and differential tests that
// stream thousands of random strings through llama.cpp itself
// (scripts/oracle), some on synthetic vocabularies whose ids show every
// pre-token boundary.
package tokenizer
