package chat

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
)

// randomPieces are fragments random message texts are built from: scripts,
// emoji, every kind of whitespace the trim/strip implementations disagree on
// easily (NBSP, BOM, NEL, ideographic space...), Jinja and JSON syntax, and
// the special-token texts templates print.
var randomPieces = []string{
	"hello", "Ünïcödé", "日本語", "😀", "👩‍👩‍👧", "   ", "\t", "\n", "\n\n", "\r\n",
	"\u00a0", "\ufeff", "\u0085", "\u2028", "\u3000", "\u200b", "{{ x }}", "{% if %}", "\"", "'",
	"\\", "</think>", "<think>", "<|im_end|>", "[INST]", "<tool_response>", "x", "0", "-1.5", "null",
}

func randomText(rng *rand.Rand) string {
	var sb strings.Builder
	for i := rng.IntN(6); i > 0; i-- {
		sb.WriteString(randomPieces[rng.IntN(len(randomPieces))])
	}
	return sb.String()
}

// randomConversation returns messages as the raw JSON the oracle gets (key
// order role, content, tool_calls, tool_call_id as package chat gives
// templates) and the same messages decoded for Go.
func randomConversation(rng *rand.Rand) json.RawMessage {
	n := 1 + rng.IntN(6)
	var parts []string
	for i := 0; i < n; i++ {
		var role string
		switch r := rng.IntN(10); {
		case i == 0 && r < 4:
			role = "system"
		case r < 5:
			role = "user"
		case r < 8:
			role = "assistant"
		default:
			role = "tool"
		}
		if i == n-1 && rng.IntN(2) == 0 {
			role = "user"
		}
		content, _ := json.Marshal(randomText(rng))
		m := fmt.Sprintf(`{"role": %q, "content": %s`, role, content)
		if role == "assistant" && rng.IntN(3) == 0 {
			args, _ := json.Marshal(randomText(rng))
			m += fmt.Sprintf(`, "tool_calls": [{"id": "abcdefghi", "type": "function", "function": {"name": "f", "arguments": {"q": %s, "n": %d}}}]`, args, rng.IntN(100))
		}
		if role == "tool" {
			m += `, "tool_call_id": "abcdefghi"`
		}
		parts = append(parts, m+"}")
	}
	return json.RawMessage("[" + strings.Join(parts, ", ") + "]")
}

// TestOracleRandomConversations renders 150 random conversations (random
// role orders, whitespace-heavy and multilingual texts, tool calls) with
// every template, with and without tools and generation prompt, and judges
// them like TestOracle.
func TestOracleRandomConversations(t *testing.T) {
	j := newJudge(t)
	templates := loadTemplates(t)
	names := make([]string, 0, len(templates))
	for n := range templates {
		names = append(names, n)
	}
	sort.Strings(names)
	parsed := map[string]*Template{}
	for _, n := range names {
		tpl, err := Parse(templates[n])
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		parsed[n] = tpl
	}
	tools := json.RawMessage(`[{"type": "function", "function": {"name": "f", "description": "Finds things", "parameters": {"type": "object", "properties": {"q": {"type": "string"}, "n": {"type": "integer"}}, "required": ["q"]}}}]`)
	rng := rand.New(rand.NewPCG(2026, 11))
	for i := 0; i < 150; i++ {
		conv := testConversation{Name: fmt.Sprintf("random-%d", i), Messages: randomConversation(rng)}
		if i%3 == 0 {
			conv.Tools = tools
		}
		msgs, toolList := conv.decode(t)
		agp := i%2 == 0
		for _, name := range names {
			got, gotErr := parsed[name].Render(msgs, Options{AddGenerationPrompt: agp, BOSToken: "<s>", EOSToken: "</s>", Tools: toolList, Extra: map[string]any{"date_string": "26 Jul 2024"}})
			ctx := map[string]any{"messages": conv.Messages, "tools": nil, "bos_token": "<s>", "eos_token": "</s>", "add_generation_prompt": agp, "date_string": "26 Jul 2024"}
			if len(conv.Tools) > 0 {
				ctx["tools"] = conv.Tools
			}
			j.check(t, name+"/"+string(conv.Messages), templates[name], ctx, got, gotErr)
		}
	}
	t.Logf("%d random renders identical to @huggingface/jinja, %d failing on both sides, %d where it departs from Jinja2 and Go matches Jinja2", j.same, j.bothFailed, j.hfDeviations)
}
