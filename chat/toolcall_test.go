package chat_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/webgguf/webgguf/chat"
)

func readTemplate(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "templates", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDetectToolFormat: the real templates map to the format their text
// teaches; templates without tool calls are NoTools.
func TestDetectToolFormat(t *testing.T) {
	want := map[string]chat.ToolFormat{
		"qwen3-gguf.jinja":        chat.Hermes,
		"smollm3-3b.jinja":        chat.Hermes,
		"llama3.2-3b.jinja":       chat.Llama3,
		"mistral-nemo-2407.jinja": chat.MistralNemo,
		"gemma3-it.jinja":         chat.NoTools,
		"llama3-gguf.jinja":       chat.NoTools,
		"chatml-openhermes.jinja": chat.NoTools,
		"phi3-mini.jinja":         chat.NoTools,
	}
	for name, f := range want {
		if got := chat.DetectToolFormat(readTemplate(t, name)); got != f {
			t.Errorf("%s: %v, want %v", name, got, f)
		}
	}
}

type parsed struct {
	content string
	calls   [][2]string // name, arguments
}

func summarize(content string, calls []chat.ToolCall) parsed {
	p := parsed{content: content}
	for _, c := range calls {
		p.calls = append(p.calls, [2]string{c.Function.Name, c.Function.Arguments.(string)})
	}
	return p
}

// TestParseToolCalls: hand-written outputs in each format, with content
// around calls, several calls, and malformed calls that must stay content.
func TestParseToolCalls(t *testing.T) {
	cases := []struct {
		f    chat.ToolFormat
		in   string
		want parsed
	}{
		{chat.Hermes, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
			parsed{"", [][2]string{{"get_weather", `{"city":"Paris"}`}}}},
		{chat.Hermes, "Let me check.\n<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n</tool_call>\n<tool_call>{\"name\": \"b\", \"arguments\": \"{\\\"x\\\": 1}\"}</tool_call> done",
			parsed{"Let me check.\n\n done", [][2]string{{"a", `{}`}, {"b", `{"x":1}`}}}},
		{chat.Hermes, "<tool_call>\n{\"name\": \"a\", \"arguments\": {\"x\": 1\n</tool_call>", // truncated JSON
			parsed{"<tool_call>\n{\"name\": \"a\", \"arguments\": {\"x\": 1\n</tool_call>", nil}},
		{chat.Hermes, "<tool_call>{\"name\": \"a\", \"arguments\": {}}", // no closing tag
			parsed{"<tool_call>{\"name\": \"a\", \"arguments\": {}}", nil}},
		{chat.Hermes, "<tool_call>{\"arguments\": {}}</tool_call> and <tool_call>{\"name\":\"ok\",\"arguments\":{\"k\":[1,2]}}</tool_call>",
			parsed{"<tool_call>{\"arguments\": {}}</tool_call> and", [][2]string{{"ok", `{"k":[1,2]}`}}}},
		{chat.Hermes, "just text", parsed{"just text", nil}},
		{chat.Llama3, "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\", \"days\": 3}}",
			parsed{"", [][2]string{{"get_weather", `{"city":"Paris","days":3}`}}}},
		{chat.Llama3, " {\"type\": \"function\", \"name\": \"f\", \"parameters\": {}}; {\"name\": \"g\", \"parameters\": {\"a\": \"b\"}}\n",
			parsed{"", [][2]string{{"f", `{}`}, {"g", `{"a":"b"}`}}}},
		{chat.Llama3, "<|python_tag|>{\"name\": \"f\", \"arguments\": {\"q\": 1}}",
			parsed{"", [][2]string{{"f", `{"q":1}`}}}},
		{chat.Llama3, "Sure: {\"name\": \"f\", \"parameters\": {}}", // prose first: not a call
			parsed{"Sure: {\"name\": \"f\", \"parameters\": {}}", nil}},
		{chat.Llama3, "{\"name\": \"f\", \"parameters\": {}} and more", parsed{"{\"name\": \"f\", \"parameters\": {}} and more", nil}},
		{chat.Llama3, "{\"name\": \"f\", \"parameters\": [1]}", parsed{"{\"name\": \"f\", \"parameters\": [1]}", nil}},
		{chat.MistralNemo, "[TOOL_CALLS][{\"name\": \"f\", \"arguments\": {\"a\": 1}, \"id\": \"abcdefghi\"}, {\"name\": \"g\", \"arguments\": {}, \"id\": \"123456789\"}]",
			parsed{"", [][2]string{{"f", `{"a":1}`}, {"g", `{}`}}}},
		{chat.MistralNemo, "Calling.[TOOL_CALLS] [{\"name\": \"f\", \"arguments\": {}}]",
			parsed{"Calling.", [][2]string{{"f", `{}`}}}},
		{chat.MistralNemo, "[TOOL_CALLS][{\"name\": \"f\", \"arguments\": {}", parsed{"[TOOL_CALLS][{\"name\": \"f\", \"arguments\": {}", nil}},
		{chat.MistralNemo, "[TOOL_CALLS][]", parsed{"[TOOL_CALLS][]", nil}},
		{chat.NoTools, "<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>", parsed{"<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>", nil}},
	}
	for i, c := range cases {
		got := summarize(chat.ParseToolCalls(c.f, c.in))
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("case %d (%v): got %#v, want %#v", i, c.f, got, c.want)
		}
	}
}

// TestToolCallsRoundTripTemplates: a call rendered by each real template
// (the syntax the model is trained to write) parses back into that call.
// SmolLM3's template is absent: it renders only the content of past
// assistant turns, never their calls.
func TestToolCallsRoundTripTemplates(t *testing.T) {
	tools := []any{json.RawMessage(`{"type":"function","function":{"name":"get_weather","description":"Weather in a city","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}`)}
	call := chat.ToolCall{ID: "call12345", Type: "function", Function: chat.FunctionCall{Name: "get_weather", Arguments: map[string]any{"city": "Paris"}}}
	msgs := []chat.Message{
		{Role: "user", Content: "Weather in Paris?"},
		{Role: "assistant", ToolCalls: []chat.ToolCall{call}},
		{Role: "tool", ToolCallID: "call12345", Name: "get_weather", Content: `{"temp": 21}`},
	}
	cases := []struct {
		template   string
		start, end string // the assistant turn's call text lies between
	}{
		{"qwen3-gguf.jinja", "<|im_start|>assistant\n", "<|im_end|>"},
		{"llama3.2-3b.jinja", "<|start_header_id|>assistant<|end_header_id|>\n\n", "<|eot_id|>"},
		{"mistral-nemo-2407.jinja", "[/INST]", "</s>"},
	}
	for _, c := range cases {
		src := readTemplate(t, c.template)
		f := chat.DetectToolFormat(src)
		out, err := chat.Render(src, msgs, chat.Options{Tools: tools, AddGenerationPrompt: true, BOSToken: "<s>", EOSToken: "</s>"})
		if err != nil {
			t.Fatalf("%s: %v", c.template, err)
		}
		i := strings.Index(out, c.start)
		if i < 0 {
			t.Fatalf("%s: no %q in %q", c.template, c.start, out)
		}
		turn := out[i+len(c.start):]
		j := strings.Index(turn, c.end)
		if j < 0 {
			t.Fatalf("%s: no %q after the assistant turn in %q", c.template, c.end, out)
		}
		turn = turn[:j]
		if !strings.Contains(out, "21") {
			t.Errorf("%s: the tool result is not in the prompt: %q", c.template, out)
		}
		content, calls := chat.ParseToolCalls(f, turn)
		if strings.TrimSpace(content) != "" || len(calls) != 1 || calls[0].Function.Name != "get_weather" || calls[0].Function.Arguments != `{"city":"Paris"}` {
			t.Errorf("%s (%v): %q parsed as %q, %+v", c.template, f, turn, content, calls)
		}
	}
}
