package chat_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	validator "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/webgguf/webgguf/chat"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/enginetest"
	"github.com/webgguf/webgguf/internal/schematest"
	"github.com/webgguf/webgguf/sample"
	"github.com/webgguf/webgguf/sample/grammar"
	"github.com/webgguf/webgguf/tokenizer"
)

// forcedTools have bounded parameters, so every forced call ends within
// forcedMaxTokens even on a random-weight model.
var forcedTools = `[
 {"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string","minLength":1,"maxLength":10},"unit":{"enum":["c","f"]}},"required":["city","unit"]}}},
 {"type":"function","function":{"name":"add","parameters":{"type":"object","properties":{"a":{"type":"integer","minimum":0,"maximum":99},"b":{"type":"integer","minimum":-9,"maximum":9}},"required":["a","b"],"additionalProperties":false}}}
]`

var forcedSchemas = map[string]string{
	"get_weather": `{"type":"object","properties":{"city":{"type":"string","minLength":1,"maxLength":10},"unit":{"enum":["c","f"]}},"required":["city","unit"]}`,
	"add":         `{"type":"object","properties":{"a":{"type":"integer","minimum":0,"maximum":99},"b":{"type":"integer","minimum":-9,"maximum":9}},"required":["a","b"],"additionalProperties":false}`,
}

const forcedMaxTokens = 300

// TestForcedToolCalls: under the grammar of tool_choice "required" or a
// named tool, a random-weight fixture model's sampled output parses (with
// the same format's parser) into exactly one call to an allowed tool whose
// arguments validate against that tool's schema (an independent
// validator), for every format.
func TestForcedToolCalls(t *testing.T) {
	e, f := enginetest.Load(t, "tiny-qwen2-q8_0", nil, engine.Options{NCtx: 512, NUbatch: 32})
	tk, err := tokenizer.FromGGUF(f)
	if err != nil {
		t.Fatal(err)
	}
	vocab := grammar.TokenizerVocab(tk, e.Config().NVocab)
	prompt, err := tk.Encode("Call a tool: ", true, false)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*validator.Schema{}
	for name, src := range forcedSchemas {
		schemas[name] = schematest.Compile(t, src, false)
	}
	for _, format := range []chat.ToolFormat{chat.Hermes, chat.Llama3, chat.MistralNemo} {
		for _, forced := range []string{"", "add"} {
			g, err := chat.ToolCallGrammar(format, []byte(forcedTools), forced)
			if err != nil {
				t.Fatalf("%v %q: %v", format, forced, err)
			}
			comp, err := grammar.ParseCompile(g)
			if err != nil {
				t.Fatalf("%v: %v\n%s", format, err, g)
			}
			for seed := uint32(1); seed <= 3; seed++ {
				t.Run(fmt.Sprintf("%v/%q/seed%d", format, forced, seed), func(t *testing.T) {
					p := sample.Defaults()
					p.Temperature, p.Seed = 1.0, seed
					got, _, gs := schematest.Generate(t, e, tk, comp, vocab, p, prompt, forcedMaxTokens)
					out := tk.Detokenize(got, false, false)
					if !gs.Matcher().Complete() {
						t.Fatalf("no complete call in %d tokens: %q", forcedMaxTokens, out)
					}
					content, calls := chat.ParseToolCalls(format, out)
					if content != "" || len(calls) != 1 {
						t.Fatalf("%q parsed as content %q and %d calls", out, content, len(calls))
					}
					name := calls[0].Function.Name
					if forced != "" && name != forced {
						t.Fatalf("%q calls %q, not the forced %q", out, name, forced)
					}
					sch := schemas[name]
					if sch == nil {
						t.Fatalf("%q calls unknown tool %q", out, name)
					}
					inst, err := validator.UnmarshalJSON(strings.NewReader(calls[0].Function.Arguments.(string)))
					if err != nil {
						t.Fatal(err)
					}
					if err := sch.Validate(inst); err != nil {
						t.Fatalf("%q: arguments do not validate: %v", out, err)
					}
					if format == chat.MistralNemo && len(calls[0].ID) != 9 {
						t.Fatalf("%q: id %q is not 9 characters", out, calls[0].ID)
					}
					t.Logf("%q", out)
				})
			}
		}
	}
}

// TestToolCallGrammarErrors: unusable tools or choices are *ToolError.
func TestToolCallGrammarErrors(t *testing.T) {
	cases := []struct {
		f     chat.ToolFormat
		tools string
		name  string
	}{
		{chat.NoTools, forcedTools, ""},
		{chat.Hermes, `{"not":"an array"}`, ""},
		{chat.Hermes, `[{"type":"function","function":{"parameters":{}}}]`, ""},
		{chat.Hermes, `[{"type":"retrieval","function":{"name":"x"}}]`, ""},
		{chat.Hermes, forcedTools, "missing"},
		{chat.Hermes, `[]`, ""},
		{chat.Hermes, `[{"type":"function","function":{"name":"x","parameters":{"type":"object","properties":{"a":{"type":"string","format":"hostname-nobody-knows"}}}}}]`, ""},
		{chat.Llama3, `[{"type":"function","function":{"name":"x","parameters":{"type":"object","properties":{"self":{"$ref":"#"}}}}}]`, ""},
	}
	for i, c := range cases {
		_, err := chat.ToolCallGrammar(c.f, []byte(c.tools), c.name)
		var te *chat.ToolError
		if !errors.As(err, &te) {
			t.Errorf("case %d: %v, want a *ToolError", i, err)
		}
	}
	// A tool without parameters takes any object.
	g, err := chat.ToolCallGrammar(chat.Hermes, []byte(`[{"type":"function","function":{"name":"now"}}]`), "")
	if err != nil {
		t.Fatal(err)
	}
	m := grammar.NewMatcher(mustCompile(t, g), nil)
	if err := m.AcceptString("<tool_call>\n{\"name\": \"now\", \"arguments\": {\"tz\": \"UTC\"}}\n</tool_call>"); err != nil || !m.Complete() {
		t.Fatalf("a call to a tool without parameters is rejected: %v", err)
	}
}

func mustCompile(t *testing.T, src string) *grammar.Compiled {
	t.Helper()
	c, err := grammar.ParseCompile(src)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
