package chat

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRender: any template text either renders or fails with one of the
// package's error types; it never panics or crashes the process. Seeds are
// the real templates in testdata.
func FuzzRender(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "templates", "*.jinja"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("{{ (a if b) }}{{ x[-1] }}{% for k, v in d.items() %}{% endfor %}")
	msgs := []Message{
		{Role: "system", Content: "s"},
		{Role: "user", Content: "u"},
		{Role: "assistant", Content: "a", ToolCalls: []ToolCall{{ID: "abcdefghi", Type: "function", Function: FunctionCall{Name: "f", Arguments: map[string]any{"x": 1}}}}},
		{Role: "tool", Content: "r", ToolCallID: "abcdefghi"},
	}
	opts := Options{AddGenerationPrompt: true, BOSToken: "<s>", EOSToken: "</s>",
		Tools: []any{map[string]any{"type": "function", "function": map[string]any{"name": "f"}}}}
	f.Fuzz(func(t *testing.T, src string) {
		_, err := Render(src, msgs, opts)
		if err == nil {
			return
		}
		var se *SyntaxError
		var re *RuntimeError
		var ra *RaisedError
		var ve *ValueError
		if !errors.As(err, &se) && !errors.As(err, &re) && !errors.As(err, &ra) && !errors.As(err, &ve) {
			t.Fatalf("untyped error %T: %v", err, err)
		}
	})
}
