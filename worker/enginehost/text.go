package enginehost

import (
	"context"
	"strings"

	"github.com/webgguf/webgguf/chat"
)

// Tokenize tokenizes text as llama_tokenize(addSpecial, parseSpecial).
func (h *Host) Tokenize(ctx context.Context, text string, addSpecial, parseSpecial bool) ([]int32, error) {
	release, err := h.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	m, err := h.model()
	if err != nil {
		return nil, err
	}
	return m.tok.Encode(text, addSpecial, parseSpecial)
}

// Detokenize turns ids into text; special renders control tokens.
func (h *Host) Detokenize(ctx context.Context, ids []int32, special bool) (string, error) {
	release, err := h.acquire(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	m, err := h.model()
	if err != nil {
		return "", err
	}
	n := int32(m.tok.NumTokens())
	for i, id := range ids {
		if id < 0 || id >= n {
			return "", invalid("token id " + itoa(int64(id)) + " at index " + itoa(int64(i)) + " is outside the vocabulary")
		}
	}
	// Byte tokens can make sequences no other token completes; the wire
	// carries valid UTF-8 only (as Generate's text does).
	return strings.ToValidUTF8(m.tok.Detokenize(ids, !special, special), "\uFFFD"), nil
}

// ApplyChatTemplate renders messages with the model's template, or with
// template when it is not empty.
func (h *Host) ApplyChatTemplate(ctx context.Context, msgs []chat.Message, addGenerationPrompt bool, template string) (string, error) {
	release, err := h.acquire(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	m, err := h.model()
	if err != nil {
		return "", err
	}
	opts := m.tplOpts
	opts.AddGenerationPrompt = addGenerationPrompt
	var text string
	if template != "" {
		text, err = chat.Render(template, msgs, opts)
	} else {
		text, err = m.tpl.Render(msgs, opts)
	}
	if err != nil {
		return "", classifyTemplate(err)
	}
	return strings.ToValidUTF8(text, "\uFFFD"), nil
}

// chatPrompt renders a conversation and tokenizes it as llama.cpp does: the
// tokenizer adds BOS when the model asks, so a BOS the template wrote itself
// is dropped first (common/chat.cpp does the same).
func (m *loaded) chatPrompt(msgs []chat.Message) ([]int32, error) {
	text, err := m.tpl.Render(msgs, m.tplOpts)
	if err != nil {
		return nil, classifyTemplate(err)
	}
	if m.tok.AddBOS() && m.tplOpts.BOSToken != "" {
		text = strings.TrimPrefix(text, m.tplOpts.BOSToken)
	}
	return m.tok.Encode(text, true, true)
}

// messages pairs roles and contents.
func messages(roles, contents []string) ([]chat.Message, error) {
	if len(roles) != len(contents) {
		return nil, invalid("messages: " + itoa(int64(len(roles))) + " roles but " + itoa(int64(len(contents))) + " contents")
	}
	out := make([]chat.Message, len(roles))
	for i := range roles {
		if roles[i] == "" {
			return nil, invalid("messages[" + itoa(int64(i)) + "].role is empty")
		}
		out[i] = chat.Message{Role: roles[i], Content: contents[i]}
	}
	return out, nil
}
