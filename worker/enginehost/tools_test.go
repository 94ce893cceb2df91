package enginehost

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/webgguf/webgguf/chat"
	"github.com/webgguf/webgguf/glue"
)

const toolsJSON = `[{"type":"function","function":{"name":"get_weather","description":"Weather in a city","parameters":{"type":"object","properties":{"city":{"type":"string","minLength":1,"maxLength":8},"unit":{"enum":["c","f"]}},"required":["city","unit"]}}}]`

// useTemplate gives the loaded model one of chat/testdata's real templates.
func useTemplate(t *testing.T, h *Host, name string) {
	t.Helper()
	src, err := os.ReadFile("../../chat/testdata/templates/" + name)
	if err != nil {
		t.Fatal(err)
	}
	m, err := h.model()
	if err != nil {
		t.Fatal(err)
	}
	if m.format.Template, err = chat.Parse(string(src)); err != nil {
		t.Fatal(err)
	}
	m.info.ChatTemplate = string(src)
}

// TestGenerateTools: for three template families a forced call comes back
// as finish "tool_calls" with parsed calls and no content; the call and a
// tool result go back in as the next turn's messages (JSON, arguments as
// OpenAI's string); tool_choice "none" takes the output as text; a template
// without a tool format is an invalid-argument error naming it.
func TestGenerateTools(t *testing.T) {
	// tiny-qwen2 (random weights) prefills the few-hundred-token tool
	// prompts far faster than gotiny.
	h := loadHost(t, "../../testdata/models/tiny-qwen2-q8_0.gguf", 1024)
	ctx := context.Background()
	// One choice per family keeps this cheap: prompts of a few hundred
	// tokens on the CPU.
	for name, choice := range map[string]string{"qwen3-gguf.jinja": "function", "llama3.2-3b.jinja": "required", "mistral-nemo-2407.jinja": "function"} {
		useTemplate(t, h, name)
		{
			gr := &glue.GenerateRequest{Chat: true, Messages: `[{"role":"user","content":"Weather in Paris?"}]`, Tools: toolsJSON,
				ToolChoice: choice, ToolName: "get_weather", MaxTokens: 200, Temperature: 0.9, Seed: 7}
			req, err := requestFrom(gr)
			if err != nil {
				t.Fatal(err)
			}
			var streamed strings.Builder
			resp, err := h.Generate(ctx, req, func(_ int32, s string) error { streamed.WriteString(s); return nil })
			if err != nil {
				t.Fatalf("%s %s: %v", name, choice, err)
			}
			var calls []struct {
				ID       string
				Type     string
				Function struct{ Name, Arguments string }
			}
			if resp.Finish != "tool_calls" || resp.Text != "" || json.Unmarshal([]byte(resp.ToolCalls), &calls) != nil || len(calls) != 1 {
				t.Fatalf("%s %s: finish %q text %q calls %q (streamed %q)", name, choice, resp.Finish, resp.Text, resp.ToolCalls, streamed.String())
			}
			c := calls[0]
			var args struct{ City, Unit string }
			if c.Function.Name != "get_weather" || c.Type != "function" || len(c.ID) != 9 || json.Unmarshal([]byte(c.Function.Arguments), &args) != nil ||
				args.City == "" || (args.Unit != "c" && args.Unit != "f") {
				t.Fatalf("%s: call %+v", name, c)
			}
			// The next turn: the call and its result.
			assistant, _ := json.Marshal(map[string]any{"role": "assistant", "content": "", "tool_calls": json.RawMessage(resp.ToolCalls)})
			tool, _ := json.Marshal(map[string]any{"role": "tool", "tool_call_id": c.ID, "name": "get_weather", "content": `{"temp": 21}`})
			gr.Messages = `[{"role":"user","content":"Weather in Paris?"},` + string(assistant) + "," + string(tool) + "]"
			gr.ToolChoice, gr.MaxTokens = "none", 8
			if req, err = requestFrom(gr); err != nil {
				t.Fatal(err)
			}
			m, _ := h.model()
			prompt, err := m.format.Template.Render(req.Messages, chat.Options{Tools: []any{json.RawMessage(toolsJSON[1 : len(toolsJSON)-1])}, AddGenerationPrompt: true, BOSToken: "<s>", EOSToken: "</s>"})
			if err != nil {
				t.Fatalf("%s: the next turn does not render: %v", name, err)
			}
			// The arguments reach the template as an object, written once.
			if !strings.Contains(prompt, args.City) || strings.Contains(prompt, `\"city\"`) || !strings.Contains(prompt, "21") {
				t.Errorf("%s: next-turn prompt %q", name, prompt)
			}
			resp, err = h.Generate(ctx, req, func(int32, string) error { return nil })
			if err != nil || resp.Finish == "tool_calls" || resp.ToolCalls != "" {
				t.Fatalf("%s: next turn: %v %+v", name, err, resp)
			}
		}
	}
	useTemplate(t, h, "gemma3-it.jinja")
	req, err := requestFrom(&glue.GenerateRequest{Chat: true, Messages: `[{"role":"user","content":"hi"}]`, Tools: toolsJSON, MaxTokens: 4})
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.Generate(ctx, req, func(int32, string) error { return nil })
	if kind(err) != KindInvalidArgument || !strings.Contains(err.Error(), "chat template") {
		t.Errorf("tools on Gemma 3: %v (%s), want invalid-argument naming the template", err, kind(err))
	}
	for _, gr := range []*glue.GenerateRequest{
		{Chat: true, Messages: `[{"role":"user","content":"hi"}]`, ToolChoice: "required"},
		{Chat: true, Messages: `[{"role":"user","content":"hi"}]`, Tools: `{"x":1}`},
		{Chat: true, Messages: `[{"role":"user","content":"hi"}]`, Tools: toolsJSON, ToolChoice: "function", ToolName: "nope"},
		{Chat: true, Messages: `[{"role":"user","content":"hi"}]`, Tools: toolsJSON, ToolChoice: "sometimes"},
		{Chat: true, Messages: `[{"content":"hi"}]`},
		{Prompt: "x", Tools: toolsJSON},
	} {
		useTemplate(t, h, "qwen3-gguf.jinja")
		req, err := requestFrom(gr)
		if err == nil {
			_, err = h.Generate(ctx, req, func(int32, string) error { return nil })
		}
		if kind(err) != KindInvalidArgument {
			t.Errorf("%+v: %v (%s), want invalid-argument", gr, err, kind(err))
		}
	}
}
