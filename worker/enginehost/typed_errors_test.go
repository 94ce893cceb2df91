package enginehost

import (
	"context"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/webgguf/webgguf/chat"
	"github.com/webgguf/webgguf/sample"
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

// TestSessionRestoreErrorsAreTyped: a truncated or foreign save is
// bad-file, a save from another context size invalid-argument, and after
// either the host generates as before; a contextShift request on this
// model goes through (nothing about it is refused).
func TestSessionRestoreErrorsAreTyped(t *testing.T) {
	h := loadHost(t, fuzzModel, fuzzNCtx)
	ctx := context.Background()
	greedy := sample.Defaults()
	greedy.Temperature = 0
	req := Request{Prompt: "hello", MaxTokens: 4, Sampling: greedy, ContextShift: true, NKeep: 1}
	first, err := h.Generate(ctx, req, func(int32, string) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	saved, err := h.SaveSession(ctx, `{"a":1}`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.SaveSession(ctx, "{not json"); kind(err) != KindInvalidArgument {
		t.Errorf("meta that is not JSON: kind %q (%v)", kind(err), err)
	}
	for _, bad := range [][]byte{nil, saved.Data[:len(saved.Data)/2], []byte("not a session")} {
		if _, err := h.RestoreSession(ctx, bad); kind(err) != KindBadFile {
			t.Errorf("%d bytes: kind %q (%v), want %s", len(bad), kind(err), err, KindBadFile)
		}
	}
	other := loadHost(t, fuzzModel, fuzzNCtx/2)
	if _, err := other.RestoreSession(ctx, saved.Data); kind(err) != KindInvalidArgument {
		t.Errorf("another context: kind %q (%v), want %s", kind(err), err, KindInvalidArgument)
	}
	r, err := h.RestoreSession(ctx, saved.Data)
	if err != nil || r.Meta != `{"a":1}` || int(r.Tokens) != int(first.PromptTokens)+3 {
		t.Fatalf("restore: %+v %v", r, err)
	}
	again, err := h.Generate(ctx, req, func(int32, string) error { return nil })
	if err != nil || again.CachedTokens == 0 || !slices.Equal(again.Ids, first.Ids) {
		t.Fatalf("after restore: %+v %v, first %v", again, err, first.Ids)
	}
}
