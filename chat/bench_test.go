package chat

import (
	"os"
	"path/filepath"
	"testing"
)

func benchConversation() []Message {
	return []Message{
		{Role: "system", Content: "You are a helpful assistant."},
		{Role: "user", Content: "Write a haiku about Go."},
		{Role: "assistant", Content: "<think>\nshort\n</think>\n\nGophers in the sun"},
		{Role: "user", Content: "Another, about WebGPU."},
	}
}

// BenchmarkRenderQwen3 renders Qwen3's template (parsed once) for a 4-turn
// conversation: the cost paid per chat turn.
func BenchmarkRenderQwen3(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("testdata", "templates", "qwen3-gguf.jinja"))
	if err != nil {
		b.Fatal(err)
	}
	tpl, err := Parse(string(src))
	if err != nil {
		b.Fatal(err)
	}
	msgs := benchConversation()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := tpl.Render(msgs, Options{AddGenerationPrompt: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseQwen3 is the one-off cost of compiling the template.
func BenchmarkParseQwen3(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("testdata", "templates", "qwen3-gguf.jinja"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Parse(string(src)); err != nil {
			b.Fatal(err)
		}
	}
}
