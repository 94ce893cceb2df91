// Package grammar is llama.cpp's GBNF grammar-constrained sampling
// (src/llama-grammar.cpp): Parse reads a grammar in llama.cpp's syntax into
// the same flat rule elements llama.cpp builds (repetitions expanded into
// generated rules the same way), Compile checks it as llama_grammar_init
// does (root rule, undefined rules, left recursion), and a Matcher keeps
// llama.cpp's set of pushdown stacks: Allowed computes the tokens the
// grammar permits next over a Vocab (a trie over the tokens' decoded code
// points, built once, so tokens sharing a prefix are matched once), Accept
// advances by a token, with partial UTF-8 sequences carried across tokens
// as llama.cpp does. Sampler applies the mask before sample.Sampler's
// chain, as llama.cpp applies its grammar sampler first.
package grammar
