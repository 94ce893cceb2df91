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
	opts := m.format.Options
	opts.AddGenerationPrompt = addGenerationPrompt
	var text string
	if template != "" {
		text, err = chat.Render(template, msgs, opts)
	} else {
		text, err = m.format.Template.Render(msgs, opts)
	}
	if err != nil {
		return "", classifyTemplate(err)
	}
	return strings.ToValidUTF8(text, "\uFFFD"), nil
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
