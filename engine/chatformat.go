package engine

import (
	"strings"

	"github.com/webgguf/webgguf/chat"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/tokenizer"
)

// ChatFormat turns conversations into prompt tokens through a model's chat
// template, as llama.cpp does (common/chat.cpp).
type ChatFormat struct {
	// Template is the parsed template: the model's, or ChatML where the
	// model has none or one that does not parse.
	Template *chat.Template
	// Options are the variables the template sees (the generation prompt
	// on, the model's BOS and EOS texts); callers may add tools or extras.
	Options chat.Options
	tok     *tokenizer.Tokenizer
}

// NewChatFormat reads f's chat template. A model without one, or with one
// this engine cannot parse, gets ChatML and a non-empty warning saying so,
// which the caller should show: its prompts are then a guess, but the
// model stays usable.
func NewChatFormat(f *gguf.File, tok *tokenizer.Tokenizer) (cf *ChatFormat, warning string, err error) {
	src, warning := chat.TemplateFor(f)
	tpl, err := chat.Parse(src)
	if err != nil {
		warning = "the model's chat template does not parse (" + err.Error() + "); using ChatML"
		if tpl, err = chat.Parse(chat.ChatML); err != nil {
			return nil, "", err
		}
	}
	text := func(key string) string {
		id, ok := f.Uint(key)
		if !ok || id >= uint64(tok.NumTokens()) {
			return ""
		}
		return tok.TokenText(int32(id))
	}
	return &ChatFormat{Template: tpl, tok: tok, Options: chat.Options{AddGenerationPrompt: true,
		BOSToken: text("tokenizer.ggml.bos_token_id"), EOSToken: text("tokenizer.ggml.eos_token_id")}}, warning, nil
}

// text renders msgs with o. The tokenizer adds BOS when the model asks,
// so a BOS the template wrote itself is dropped first (as common/chat.cpp).
func (c *ChatFormat) text(msgs []chat.Message, o chat.Options) (string, error) {
	text, err := c.Template.Render(msgs, o)
	if err != nil {
		return "", err
	}
	if c.tok.AddBOS() && o.BOSToken != "" {
		text = strings.TrimPrefix(text, o.BOSToken)
	}
	return text, nil
}

// Prompt renders the conversation and tokenizes it (BOS added where the
// model wants it, special tokens parsed). Render errors are chat's.
func (c *ChatFormat) Prompt(msgs []chat.Message) ([]int32, error) {
	text, err := c.text(msgs, c.Options)
	if err != nil {
		return nil, err
	}
	return c.tok.Encode(text, true, true)
}

// Next returns the tokens that msgs[len(msgs)-1] adds after the earlier
// messages, for a session that streams on (GenerateRequest.Append): the
// text the template renders for all of msgs past what it renders for the
// earlier ones without a generation prompt, as llama.cpp's
// common_chat_format_single. With no earlier messages it is Prompt.
func (c *ChatFormat) Next(msgs []chat.Message) ([]int32, error) {
	if len(msgs) <= 1 {
		return c.Prompt(msgs)
	}
	past := c.Options
	past.AddGenerationPrompt = false
	before, err := c.text(msgs[:len(msgs)-1], past)
	if err != nil {
		return nil, err
	}
	all, err := c.text(msgs, c.Options)
	if err != nil {
		return nil, err
	}
	delta := strings.TrimPrefix(all, before)
	if len(delta) == len(all) {
		// The template rewrites earlier turns when one is added: the
		// delta is everything after the common prefix.
		i := 0
		for i < len(before) && i < len(all) && before[i] == all[i] {
			i++
		}
		delta = all[i:]
	}
	return c.tok.Encode(delta, false, true)
}
