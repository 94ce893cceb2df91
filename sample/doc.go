// Package sample picks the next token from a row of logits the way
// llama.cpp's default sampler chain does: logit bias, repetition /
// frequency / presence penalties over the last N tokens, top-k, typical-p,
// top-p, min-p, temperature, then a seeded draw (greedy when the temperature
// is ≤ 0). The draw uses the same mt19937 generator and the same single-pass
// cumulative search as llama.cpp's dist sampler, and the candidates are
// sorted with replicas of the libstdc++ sorts llama.cpp calls (so even equal
// logits end in the same order): a seed picks the same tokens as llama.cpp
// given the same logits.
//
// The package also holds what ends generation: StopMatcher (stop strings
// found across token boundaries in streamed text, withheld until it is clear
// they are not a stop) and EOGTokens (the end-of-generation token set from
// GGUF metadata).
package sample
