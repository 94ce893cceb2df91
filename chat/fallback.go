package chat

import "strings"

// ChatML is the template used for a model that ships none: the
// <|im_start|>role\ncontent<|im_end|> format most small chat models were
// tuned on, and llama.cpp's own fallback.
const ChatML = "{%- for message in messages -%}" +
	"{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' -}}" +
	"{%- endfor -%}" +
	"{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}{%- endif -%}"

// TemplateKey is the GGUF metadata key holding a model's chat template.
const TemplateKey = "tokenizer.chat_template"

// Metadata is the part of a GGUF file TemplateFor reads; *gguf.File has it.
type Metadata interface {
	String(key string) (string, bool)
}

// TemplateFor returns the model's chat template. A model without one (or
// with an empty one) gets ChatML and a non-empty warning saying so, which the
// caller should show: the prompt format is then a guess.
func TemplateFor(md Metadata) (template string, warning string) {
	if md != nil {
		if t, ok := md.String(TemplateKey); ok && strings.TrimSpace(t) != "" {
			return t, ""
		}
	}
	return ChatML, "model has no " + TemplateKey + "; using ChatML, which may not be the format it was trained on"
}
