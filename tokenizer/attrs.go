package tokenizer

import "strings"

// Token-text heuristics llama.cpp applies at load time (llama-vocab.cpp):
// end-of-turn/end-of-generation/FIM-looking tokens become control tokens.
var (
	eotTexts = []string{"<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|end_of_text|>", "<EOT>", "_<EOT>", "[EOT]", "<｜end▁of▁sentence｜>", "<end_of_utterance>"}
	eomTexts = []string{"<|eom_id|>"}
	fimTexts = [][]string{
		{"<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<｜fim▁begin｜>", "<PRE>", "▁<PRE>", "<|code_prefix|>", "<|prefix|>"},
		{"<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<｜fim▁hole｜>", "<SUF>", "▁<SUF>", "<|code_suffix|>", "<|suffix|>"},
		{"<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<｜fim▁end｜>", "<MID>", "▁<MID>", "<|code_middle|>", "<|middle|>"},
		{"<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"},
		{"<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"},
		{"<|file_sep|>"},
	}
	eogTexts = []string{"<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>", "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]", "<|end_of_text|>", "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>", "<｜end▁of▁sentence｜>", "[e~["}
)

// fixAttrs applies llama.cpp's text-based special-token detection. llama.cpp
// walks an unordered_map, so when several candidates exist the one it picks
// depends on hashing; we take the first in llama.cpp's list order, which is
// what it picks for Llama 3 (<|eot_id|>) and Qwen (<|im_end|>).
func (t *Tokenizer) fixAttrs() {
	pick := func(cur *int32, texts []string) {
		if *cur != NoToken {
			return
		}
		for _, s := range texts {
			if id, ok := t.tokenID.get(s); ok {
				*cur = id
				t.attrs[id] |= AttrControl
				return
			}
		}
	}
	pick(&t.eot, eotTexts)
	pick(&t.eom, eomTexts)
	fim := make([]int32, len(fimTexts))
	for i, texts := range fimTexts {
		fim[i] = NoToken
		pick(&fim[i], texts)
	}
	for _, id := range fim[3:] {
		if id != NoToken {
			t.eog[id] = true
		}
	}
	for _, s := range eogTexts {
		if id, ok := t.tokenID.get(s); ok {
			t.eog[id] = true
			t.attrs[id] |= AttrControl
		}
	}
	for _, s := range []string{"<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"} {
		if id, ok := t.tokenID.get(s); ok {
			t.attrs[id] = AttrUserDefined
		}
	}
	for _, id := range []int32{t.eos, t.eot, t.eom} {
		if id != NoToken {
			t.eog[id] = true
		}
	}
	t.eogWorkarounds()
}

// eogWorkarounds mirrors llama.cpp's gpt-oss/solar-open and gemma4 EOG
// exceptions.
func (t *Tokenizer) eogWorkarounds() {
	var hasReturn, hasCall, hasFlush, hasTool bool
	endID, sID := NoToken, NoToken
	for id := range t.eog {
		switch t.tokens[id] {
		case "<|return|>":
			hasReturn = true
		case "<|call|>", "<|calls|>":
			hasCall = true
		case "<|flush|>":
			hasFlush = true
		case "<|end|>":
			endID = id
		case "<|tool_response>":
			hasTool = true
		case "</s>":
			sID = id
		}
	}
	if endID != NoToken && hasCall && (hasReturn || hasFlush) {
		delete(t.eog, endID)
		t.attrs[endID] = AttrUserDefined
	}
	if hasTool && sID != NoToken {
		delete(t.eog, sID)
		t.attrs[sID] = AttrNormal
	}
}

// phi3Attrs is llama.cpp's Phi-3 special case: special tokens swallow the
// whitespace after them, except <unk>, <s>, <|endoftext|>. llama.cpp fails
// to load such a model when one of those four tokens is missing.
func (t *Tokenizer) phi3Attrs(name string) error {
	name = strings.ToLower(name)
	if !strings.Contains(name, "phi-3") && !strings.Contains(name, "phi3") {
		return nil
	}
	for _, s := range []string{"</s>", "<unk>", "<s>", "<|endoftext|>"} {
		if _, ok := t.tokenID.get(s); !ok {
			return metaErr("tokenizer.ggml.tokens", -1, "general.name %q asks for Phi-3 token attributes, but token %q is missing", name, s)
		}
	}
	for _, id := range t.special {
		t.attrs[id] |= AttrRStrip
	}
	// All four are present (checked above).
	eos, _ := t.tokenID.get("</s>")
	t.attrs[eos] |= AttrRStrip
	for _, s := range []string{"<unk>", "<s>", "<|endoftext|>"} {
		id, _ := t.tokenID.get(s)
		t.attrs[id] &^= AttrRStrip
	}
	return nil
}
