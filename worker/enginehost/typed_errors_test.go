package enginehost

import (
	"context"
	"testing"
	"unicode/utf8"

	"github.com/webgguf/webgguf/chat"
)

// TestTemplateErrorsAndBadUTF8AreTyped: FuzzHandlers' first finds. A chat
// template that does not parse or raises is invalid-argument (it was
// "internal"), and detokenizing byte tokens that make no valid UTF-8 gives
// U+FFFD instead of a response that cannot be encoded (kind "encode").
func TestTemplateErrorsAndBadUTF8AreTyped(t *testing.T) {
	h := loadHost(t, fuzzModel, fuzzNCtx)
	ctx := context.Background()
	msgs := []chat.Message{{Role: "user", Content: "hi"}}
	for _, tpl := range []string{"{% for m in messages %}{{ m.content", "{{ raise_exception('roles must alternate') }}"} {
		if _, err := h.ApplyChatTemplate(ctx, msgs, true, tpl); kind(err) != KindInvalidArgument {
			t.Errorf("template %q: kind %q (%v), want %s", tpl, kind(err), err, KindInvalidArgument)
		}
	}
	text, err := h.Detokenize(ctx, []int32{1, 2, 3, 100, 200}, true)
	if err != nil || !utf8.ValidString(text) {
		t.Fatalf("detokenize: %q %v", text, err)
	}
}
