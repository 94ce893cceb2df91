package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/webgguf/webgguf/chat"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/sample"
	"github.com/webgguf/webgguf/tokenizer"
)

func openChatSession(t *testing.T, path string) *chatSession {
	t.Helper()
	f, err := gguf.OpenPath(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	tok, err := tokenizer.FromGGUF(f)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Load(context.Background(), f, engine.Options{NCtx: 512})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	p := sample.Defaults()
	p.Temperature = 0
	s, err := newChatSession(f, tok, e, p, io.Discard, chatShift{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestChatSessionReusesPrefix: the second turn evaluates only what the
// re-rendered conversation adds, and its reply equals the one a fresh
// session computes from the whole conversation.
func TestChatSessionReusesPrefix(t *testing.T) {
	model := models + "gotiny-q4_k_m.gguf"
	a := openChatSession(t, model)
	var out bytes.Buffer
	if _, err := a.turn(context.Background(), "func main() {", 8, nil, &out); err != nil {
		t.Fatal(err)
	}
	first := a.messages[len(a.messages)-1]
	if first.Role != "assistant" || first.Content != out.String() {
		t.Fatalf("recorded reply %+v, printed %q", first, out.String())
	}
	reused, err := a.turn(context.Background(), "package http", 8, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if a.lastKeep == 0 {
		t.Fatal("the second turn reused no prefix")
	}

	b := openChatSession(t, model)
	b.messages = append(b.messages, chat.Message{Role: "user", Content: "func main() {"}, first)
	fresh, err := b.turn(context.Background(), "package http", 8, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if b.lastKeep != 0 || !slices.Equal(reused, fresh) {
		t.Fatalf("prefix reuse gave %v, fresh evaluation %v (fresh keep %d)", reused, fresh, b.lastKeep)
	}
}

// TestChatCommandStops: a stop string ends the reply and is not printed.
func TestChatCommandStops(t *testing.T) {
	var out, errOut bytes.Buffer
	err := chatCmd(context.Background(), []string{"--model", models + "gotiny-q4_k_m.gguf", "-n", "24", "--temp", "0", "--stop", "\\n"},
		strings.NewReader("func add(a, b int) int {\n"), &out, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	reply := strings.TrimSuffix(out.String(), "\n") // chatCmd ends each reply with a newline
	if strings.Contains(reply, "\n") {
		t.Errorf("stop string printed: %q", out.String())
	}
	if !strings.Contains(errOut.String(), "ChatML") {
		t.Errorf("no fallback warning: %q", errOut.String())
	}
}

// TestChatCommandContextShift: a scripted chat far longer than its
// 128-position context runs to the end with --context-shift (every reply
// printed), and stops with a typed context-full error without it.
func TestChatCommandContextShift(t *testing.T) {
	var script strings.Builder
	for i := range 24 {
		fmt.Fprintf(&script, "func f%d() int {\n", i)
	}
	run := func(extra ...string) (string, error) {
		var out bytes.Buffer
		args := append([]string{"--model", models + "tiny-llama-q8_0.gguf", "-n", "8", "--temp", "0", "--ctx", "128"}, extra...)
		err := chatCmd(context.Background(), args, strings.NewReader(script.String()), &out, io.Discard)
		return out.String(), err
	}
	out, err := run("--context-shift", "--keep", "0")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, "\n"); n < 24 {
		t.Fatalf("%d replies printed for 24 turns", n)
	}
	var full *engine.ContextFullError
	if _, err := run(); !errors.As(err, &full) {
		t.Fatalf("without --context-shift: %v, want a *engine.ContextFullError", err)
	}
}

// TestChatCommandSessionFile: a chat saved with --session and resumed by a
// second run (no prefill of the restored tokens) replies as one run
// through all the turns does, with and without --context-shift; a session
// file of another model is refused.
func TestChatCommandSessionFile(t *testing.T) {
	lines := []string{"func a() {", "return 1", "package b"}
	for _, extra := range [][]string{nil, {"--context-shift", "--ctx", "96"}} {
		run := func(path string, in ...string) (string, string) {
			var out, errOut bytes.Buffer
			args := append([]string{"--model", models + "tiny-llama-q8_0.gguf", "-n", "12", "--temp", "0"}, extra...)
			if path != "" {
				args = append(args, "--session", path)
			}
			if err := chatCmd(context.Background(), args, strings.NewReader(strings.Join(in, "\n")+"\n"), &out, &errOut); err != nil {
				t.Fatal(err)
			}
			return out.String(), errOut.String()
		}
		whole, _ := run("", lines...)
		path := t.TempDir() + "/chat.session"
		first, _ := run(path, lines[:2]...)
		last, msgs := run(path, lines[2])
		if !strings.Contains(msgs, "[restored ") {
			t.Errorf("%v: no restore reported: %q", extra, msgs)
		}
		if first+last != whole {
			t.Errorf("%v: resumed chat %q + %q, one run %q", extra, first, last, whole)
		}
		var out bytes.Buffer
		err := chatCmd(context.Background(), append([]string{"--model", models + "tiny-qwen2-q8_0.gguf", "--session", path}, extra...), strings.NewReader("hi\n"), &out, io.Discard)
		var mm *engine.SessionMismatchError
		if !errors.As(err, &mm) {
			t.Errorf("%v: session of tiny-llama restored into tiny-qwen2: %v, want a *engine.SessionMismatchError", extra, err)
		}
	}
}

// TestChatKeepsTheSystemMessage: with --context-shift and no --keep, a
// shift keeps what the system message renders to (ChatML: through its
// <|im_end|>), a prefix of the first prompt.
func TestChatKeepsTheSystemMessage(t *testing.T) {
	f, err := gguf.OpenPath(models + "tiny-llama-q8_0.gguf")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tok, err := tokenizer.FromGGUF(f)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Load(context.Background(), f, engine.Options{NCtx: 64, Tokenizer: tok})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s, err := newChatSession(f, tok, e, sample.Defaults(), io.Discard, chatShift{on: true, keep: keepSystem})
	if err != nil {
		t.Fatal(err)
	}
	s.messages = []chat.Message{{Role: "system", Content: "Be brief."}}
	if _, err := s.turn(context.Background(), "hi", 2, nil, io.Discard); err != nil {
		t.Fatal(err)
	}
	sys, err := tok.Encode("<|im_start|>system\nBe brief.<|im_end|>\n", true, true)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.sess.NKeep(); got != len(sys) || !slices.Equal(s.sess.Tokens()[:got], sys) {
		t.Fatalf("keeps %d tokens, want the system message's %d", got, len(sys))
	}
}
