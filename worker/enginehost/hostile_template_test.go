package enginehost

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/webgguf/webgguf/chat"
	"github.com/webgguf/webgguf/gguf"
)

// withTemplate returns the gotiny model file with src as its chat template.
func withTemplate(t *testing.T, src string) []byte {
	t.Helper()
	f, err := gguf.OpenPath(gotiny)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	kv := []gguf.KV{}
	for _, e := range f.KV {
		if e.Key != "tokenizer.chat_template" {
			kv = append(kv, e)
		}
	}
	kv = append(kv, gguf.KV{Key: "tokenizer.chat_template", Value: gguf.ValueOf(src)})
	tensors := make([]gguf.TensorData, len(f.Tensors))
	for i := range f.Tensors {
		ti := &f.Tensors[i]
		data, err := f.ReadTensor(ti)
		if err != nil {
			t.Fatal(err)
		}
		tensors[i] = gguf.TensorData{Name: ti.Name, Type: ti.Type, Ne: ti.Ne, Data: data}
	}
	var buf bytes.Buffer
	if err := gguf.Write(&buf, kv, tensors, int(f.Alignment)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestLoadHostileTemplate: a model whose chat template is hostile (issue
// 28: brackets 100 000 deep overflowed the parser's stack, killing the
// worker on load) loads with ChatML and a warning naming the limit, and a
// caller's hostile template fails its render with a typed error.
func TestLoadHostileTemplate(t *testing.T) {
	ctx := context.Background()
	src := "{{ " + strings.Repeat("[", 100000) + "1" + strings.Repeat("]", 100000) + " }}"
	h := New()
	info, err := h.Load(ctx, withTemplate(t, src), LoadOptions{Name: "m", NCtx: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Unload(ctx)
	if !strings.Contains(info.TemplateWarning, "nesting depth") {
		t.Errorf("warning %q does not name the limit", info.TemplateWarning)
	}
	msgs := []chat.Message{{Role: "user", Content: "hi"}}
	out, err := h.ApplyChatTemplate(ctx, msgs, true, "")
	if err != nil || out != "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n" {
		t.Errorf("ChatML fallback: %q, %v", out, err)
	}
	_, err = h.ApplyChatTemplate(ctx, msgs, true, "{% for x in [1] recursive %}{{ loop([1]) }}{% endfor %}")
	var le *chat.LimitError
	if !errors.As(err, &le) || le.Limit != "call depth" {
		t.Errorf("caller's hostile template: %v", err)
	}
}
