package chat

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webgguf/webgguf/gguf"
)

// TestTemplatesFromGGUF checks that the vocab fixtures' templates are the
// ones stored in testdata (so the oracle test covers exactly what models
// ship) and that TemplateFor picks them.
func TestTemplatesFromGGUF(t *testing.T) {
	for model, file := range map[string]string{
		"vocab-llama3-bpe.gguf": "llama3-gguf.jinja",
		"vocab-qwen3-bpe.gguf":  "qwen3-gguf.jinja",
	} {
		f, err := gguf.OpenPath(filepath.Join("..", "testdata", "models", model))
		if err != nil {
			t.Fatal(err)
		}
		got, warning := TemplateFor(f)
		f.Close()
		want, err := os.ReadFile(filepath.Join("testdata", "templates", file))
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) || warning != "" {
			t.Errorf("%s: template differs from testdata/templates/%s (warning %q)", model, file, warning)
		}
	}
}

// TestFallbackChatML: the SentencePiece vocab fixture has no template, so it
// gets ChatML with a warning, and ChatML renders the format llama.cpp's
// built-in chatml writes (llama-chat.cpp, LLM_CHAT_TEMPLATE_CHATML).
func TestFallbackChatML(t *testing.T) {
	f, err := gguf.OpenPath(filepath.Join("..", "testdata", "models", "vocab-llama-spm.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tmpl, warning := TemplateFor(f)
	if tmpl != ChatML || warning == "" {
		t.Fatalf("got template %q warning %q, want ChatML with a warning", tmpl, warning)
	}
	if tmpl, warning := TemplateFor(nil); tmpl != ChatML || warning == "" {
		t.Fatalf("nil metadata: got %q, %q", tmpl, warning)
	}
	got, err := Render(ChatML, []Message{{Role: "system", Content: "S"}, {Role: "user", Content: "Hi"}}, Options{AddGenerationPrompt: true})
	if err != nil {
		t.Fatal(err)
	}
	want := "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
	if got != want {
		t.Fatalf("got %q want %q", got, want)
	}
}

// TestErrorsAreTyped feeds broken and hostile templates: every failure is one
// of the package's error types, never a panic, a hang or a crash.
func TestErrorsAreTyped(t *testing.T) {
	msgs := []Message{{Role: "user", Content: "hi"}}
	cases := []struct {
		name, src string
		check     func(error) bool
	}{
		{"unclosed block", "{% for m in messages %}{{ m.content }}", isSyntax},
		{"unclosed expression", "{{ messages[0].content ", isSyntax},
		{"unknown tag", "{% frobnicate %}", isSyntax},
		{"raise", "{{ raise_exception('no system role') }}", func(err error) bool {
			var re *RaisedError
			return errors.As(err, &re) && re.Message == "no system role"
		}},
		{"raise inside loop", "{% for m in messages %}{% if m.role == 'user' %}{{ raise_exception('Conversation roles must alternate') }}{% endif %}{% endfor %}", func(err error) bool {
			var re *RaisedError
			return errors.As(err, &re) && re.Message == "Conversation roles must alternate"
		}},
		{"unknown method", "{{ messages[0].content.nosuchmethod() }}", isRuntime},
		{"huge range", "{% for i in range(1000000000000) %}x{% endfor %}", isRuntime},
		{"recursive macro", "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", isRuntime},
		{"include itself", "{% include '/chat_template' %}", isSyntax},
		{"string doubling", "{% set ns = namespace(s='xxxxxxxx') %}{% for i in range(40) %}{% set ns.s = ns.s + ns.s %}{% endfor %}{{ ns.s | length }}", isRuntime},
		{"list doubling", "{% set ns = namespace(l=[1, 2]) %}{% for i in range(40) %}{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ns.l | length }}", isRuntime},
		{"string repeat", "{{ 'x' * 1000000000 }}", isRuntime},
		{"concat repeat", "{{ ('ab' * 10000000) ~ ('ab' * 10000000) }}", isRuntime},
		{"center width", "{{ 'x' | center(1000000000) }}", isRuntime},
		{"ljust width", "{{ 'x'.ljust(1000000000) }}", isRuntime},
		{"zfill width", "{{ 'x'.zfill(1000000000) }}", isRuntime},
		{"format spec width", "{{ '{:>1000000000}'.format(1) }}", isRuntime},
		{"format filter width", "{{ '%1000000000d' | format(1) }}", isRuntime},
		{"nested loops", "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}", isRuntime},
		{"lipsum", "{{ lipsum(1000000000) }}", isRuntime},
		{"output bomb", "{% set s = 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' %}{% for a in range(1000) %}{% for b in range(1000) %}{% for c in range(1100) %}{{ s }}{% endfor %}{% endfor %}{% endfor %}", isRuntime},
	}
	for _, c := range cases {
		start := time.Now()
		_, err := Render(c.src, msgs, Options{})
		if err == nil || !c.check(err) {
			t.Errorf("%s: got %T %v", c.name, err, err)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("%s: took %v", c.name, d)
		}
		if len(err.Error()) > 2000 {
			t.Errorf("%s: error message is %d bytes", c.name, len(err.Error()))
		}
	}
}

func isSyntax(err error) bool {
	var se *SyntaxError
	return errors.As(err, &se)
}

func isRuntime(err error) bool {
	var re *RuntimeError
	return errors.As(err, &re)
}

// TestStrftimeNow compares strftime_now with what CPython 3.11's
// time.strftime printed for 2024-03-05 07:08:09 (a Tuesday, day 65) on glibc.
func TestStrftimeNow(t *testing.T) {
	now := time.Date(2024, 3, 5, 7, 8, 9, 0, time.UTC)
	cases := map[string]string{
		"%d %b %Y":       "05 Mar 2024",
		"%-d %B %Y":      "5 March 2024",
		"%Y-%m-%d %H:%M": "2024-03-05 07:08",
		"%a %A %j %p %I": "Tue Tuesday 065 AM 07",
		"%y %e %% %S":    "24  5 % 09",
	}
	for format, want := range cases {
		got, err := Render("{{ strftime_now('"+format+"') }}", nil, Options{Now: now})
		if err != nil || got != want {
			t.Errorf("%q: got %q, %v; want %q", format, got, err, want)
		}
	}
}

// TestValueErrors: inputs that cannot become template values are reported
// with the field that holds them.
func TestValueErrors(t *testing.T) {
	_, err := Render("x", nil, Options{Tools: []any{map[string]any{"f": func() {}}}})
	var ve *ValueError
	if !errors.As(err, &ve) || ve.Field != "tools" {
		t.Errorf("func in tools: got %v", err)
	}
	_, err = Render("x", []Message{{Role: "assistant", ToolCalls: []ToolCall{{Function: FunctionCall{Name: "f", Arguments: make(chan int)}}}}}, Options{})
	if !errors.As(err, &ve) || !strings.Contains(ve.Field, "messages[0].tool_calls[0]") {
		t.Errorf("chan in arguments: got %v", err)
	}
	deep := any("leaf")
	for i := 0; i < 200; i++ {
		deep = []any{deep}
	}
	_, err = Render("x", nil, Options{Extra: map[string]any{"deep": deep}})
	if !errors.As(err, &ve) || ve.Field != "extra.deep" {
		t.Errorf("deep extra: got %v", err)
	}
}
