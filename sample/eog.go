package sample

import "slices"

// Metadata is the part of a GGUF file EOGTokens reads; *gguf.File has it.
type Metadata interface {
	Uint(key string) (uint64, bool)
	Strings(key string) ([]string, bool)
}

// eogIDKeys are the metadata ids llama.cpp adds to its end-of-generation set
// (llama-vocab.cpp): EOS, EOT, EOM, and the FIM padding/repo/separator
// tokens, which end a completion in fill-in-the-middle use.
var eogIDKeys = []string{
	"tokenizer.ggml.eos_token_id",
	"tokenizer.ggml.eot_token_id",
	"tokenizer.ggml.eom_token_id",
	"tokenizer.ggml.fim_pad_token_id",
	"tokenizer.ggml.fim_rep_token_id",
	"tokenizer.ggml.fim_sep_token_id",
}

// eogTexts are token texts llama.cpp treats as end of generation wherever
// they appear in a vocabulary, since many GGUF files only name EOS.
var eogTexts = map[string]bool{
	"<|eot_id|>":         true, // Llama 3
	"<|im_end|>":         true, // ChatML: Qwen, SmolLM, ...
	"<|end|>":            true, // Phi-3
	"<|return|>":         true, // gpt-oss
	"<|call|>":           true, // gpt-oss
	"<end_of_turn>":      true, // Gemma
	"<|endoftext|>":      true,
	"<|eom_id|>":         true, // Llama 3.1 tool calls
	"<EOT>":              true, // CodeLlama
	"_<EOT>":             true,
	"<|end_of_text|>":    true, // Llama 3, Granite
	"<end_of_utterance>": true, // SmolDocling
	"</s>":               true, // the llama.cpp build tested against counts it (Qwen3's vocabulary has one)
}

// fimTexts are, per FIM role, the texts llama.cpp auto-detects when the
// metadata names no id (pad, repo, file separator); the found tokens end
// generation too.
var fimTexts = []map[string]bool{
	{"<|fim_pad|>": true, "<fim-pad>": true, "<fim_pad>": true, "<PAD>": true, "[PAD]": true},
	{"<|fim_repo|>": true, "<|repo_name|>": true, "<fim-repo>": true, "<REPO>": true, "<reponame>": true},
	{"<|file_sep|>": true},
}

// eotTexts are the texts llama.cpp takes as the EOT token when the metadata
// names none; the EOT token is end of generation too.
var eotTexts = map[string]bool{
	"<|eot_id|>": true, "<|im_end|>": true, "<|end|>": true, "<end_of_turn>": true,
	"<|endoftext|>": true, "<EOT>": true, "_<EOT>": true, "<｜end▁of▁sentence｜>": true,
	"<end_of_utterance>": true,
}

// EOGTokens returns the sorted ids that end generation for a model: the ids
// named in metadata plus the tokens whose text marks an end of turn, as
// llama.cpp's vocabulary loader collects them.
func EOGTokens(md Metadata) []int32 {
	tokens, _ := md.Strings("tokenizer.ggml.tokens")
	n := uint64(len(tokens))
	set := map[int32]bool{}
	for _, key := range eogIDKeys {
		if id, ok := md.Uint(key); ok && id < n {
			set[int32(id)] = true
		}
	}
	_, hasEOT := md.Uint("tokenizer.ggml.eot_token_id")
	eotFound := hasEOT
	var fimFound [3]bool
	for k := range fimFound {
		_, fimFound[k] = md.Uint(eogIDKeys[3+k])
	}
	// Where llama.cpp takes one token per role from an unordered map, the
	// lowest id is taken here.
	for i, t := range tokens {
		if eogTexts[t] {
			set[int32(i)] = true
		}
		if !eotFound && eotTexts[t] {
			set[int32(i)] = true
			eotFound = true
		}
		for k, texts := range fimTexts {
			if !fimFound[k] && texts[t] {
				set[int32(i)] = true
				fimFound[k] = true
			}
		}
	}
	out := make([]int32, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}
