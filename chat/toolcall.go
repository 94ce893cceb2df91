package chat

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
)

// ToolFormat is the syntax in which a model family writes tool calls, as
// its chat template teaches it. It decides how ParseToolCalls reads a
// model's output and how ToolCallGrammar forces a call.
type ToolFormat int

const (
	// NoTools marks a template that has no tool-call syntax: asking it for
	// tools is an error, not a silently ignored request.
	NoTools ToolFormat = iota
	// Hermes is Hermes 2 Pro's `<tool_call>{"name": …, "arguments": …}</tool_call>`,
	// also used by Qwen2.5, Qwen3 and SmolLM3.
	Hermes
	// Llama3 is Llama 3.1–3.3's bare JSON object `{"name": …, "parameters": …}`.
	Llama3
	// MistralNemo is Mistral Nemo's `[TOOL_CALLS][{"name": …, "arguments": …, "id": …}]`.
	MistralNemo
)

// String names the format as llama.cpp's common/chat.cpp does.
func (f ToolFormat) String() string {
	switch f {
	case Hermes:
		return "Hermes 2 Pro"
	case Llama3:
		return "Llama 3.x"
	case MistralNemo:
		return "Mistral Nemo"
	}
	return "no tool support"
}

// DetectToolFormat picks the tool-call format from a chat template's text
// by the markers llama.cpp's common/chat.cpp looks for. A template that
// never mentions tool calls (Gemma 3, Llama 3.0, ChatML) is NoTools.
func DetectToolFormat(template string) ToolFormat {
	switch {
	case strings.Contains(template, "[TOOL_CALLS]"):
		return MistralNemo
	case strings.Contains(template, "<tool_call>"):
		return Hermes
	case strings.Contains(template, "<|start_header_id|>ipython<|end_header_id|>"):
		return Llama3
	}
	return NoTools
}

// ParseToolCalls splits a model's output into plain content and the tool
// calls written in format f. Arguments come back as compact JSON text (the
// OpenAI API's string form). Output that is not a well-formed call in f —
// truncated JSON, a missing name, a format the model half followed — stays
// in content unchanged, so nothing the model wrote is lost.
func ParseToolCalls(f ToolFormat, text string) (content string, calls []ToolCall) {
	switch f {
	case Hermes:
		return parseHermes(text)
	case Llama3:
		return parseLlama3(text)
	case MistralNemo:
		return parseMistralNemo(text)
	}
	return text, nil
}

// parseHermes takes every `<tool_call>…</tool_call>` block holding one JSON
// object with a name; the text around the blocks is content. A block that
// does not hold such an object stays in content.
func parseHermes(text string) (string, []ToolCall) {
	const open, close = "<tool_call>", "</tool_call>"
	var content strings.Builder
	var calls []ToolCall
	rest := text
	for {
		i := strings.Index(rest, open)
		if i < 0 {
			break
		}
		body := rest[i+len(open):]
		j := strings.Index(body, close)
		var call ToolCall
		ok := false
		if j >= 0 {
			call, ok = callFromJSON(strings.TrimSpace(body[:j]), "arguments")
		}
		if !ok {
			content.WriteString(rest[:i+len(open)])
			rest = body
			continue
		}
		content.WriteString(rest[:i])
		calls = append(calls, call)
		rest = body[j+len(close):]
	}
	content.WriteString(rest)
	if len(calls) == 0 {
		return text, nil
	}
	return strings.TrimSpace(content.String()), calls
}

// parseLlama3 reads output that is one or more JSON call objects and
// nothing else (separated by whitespace or ";"), optionally after the
// <|python_tag|> marker, as llama.cpp's Llama 3.x parser does: a call is
// recognised only when it is the whole answer.
func parseLlama3(text string) (string, []ToolCall) {
	s := strings.TrimSpace(text)
	s = strings.TrimSpace(strings.TrimPrefix(s, "<|python_tag|>"))
	var calls []ToolCall
	for s != "" {
		raw, n, ok := firstJSON(s)
		if !ok {
			return text, nil
		}
		call, ok := callFromJSON(raw, "parameters")
		if !ok {
			if call, ok = callFromJSON(raw, "arguments"); !ok {
				return text, nil
			}
		}
		calls = append(calls, call)
		s = strings.TrimLeftFunc(s[n:], func(r rune) bool { return unicode.IsSpace(r) || r == ';' })
	}
	if len(calls) == 0 {
		return text, nil
	}
	return "", calls
}

// parseMistralNemo reads `[TOOL_CALLS]` followed by a JSON array of calls;
// the text before the marker is content.
func parseMistralNemo(text string) (string, []ToolCall) {
	const marker = "[TOOL_CALLS]"
	i := strings.Index(text, marker)
	if i < 0 {
		return text, nil
	}
	after := strings.TrimLeftFunc(text[i+len(marker):], unicode.IsSpace)
	raw, n, ok := firstJSON(after)
	if !ok {
		return text, nil
	}
	var items []json.RawMessage
	if json.Unmarshal([]byte(raw), &items) != nil || len(items) == 0 {
		return text, nil
	}
	calls := make([]ToolCall, 0, len(items))
	for _, it := range items {
		call, ok := callFromJSON(string(it), "arguments")
		if !ok {
			return text, nil
		}
		calls = append(calls, call)
	}
	return strings.TrimSpace(text[:i] + after[n:]), calls
}

// firstJSON returns the JSON value at the start of s and its length.
func firstJSON(s string) (string, int, bool) {
	d := json.NewDecoder(strings.NewReader(s))
	var raw json.RawMessage
	if err := d.Decode(&raw); err != nil {
		return "", 0, false
	}
	n := int(d.InputOffset())
	return s[:n], n, true
}

// callFromJSON reads {"name": string, argsKey: object, "id"?: string}
// (an optional "type": "function" is allowed, as Llama 3 sometimes writes
// it). Arguments must be a JSON object, or a string holding one.
func callFromJSON(raw, argsKey string) (ToolCall, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(raw), &obj) != nil {
		return ToolCall{}, false
	}
	var name, id string
	if json.Unmarshal(obj["name"], &name) != nil || name == "" {
		return ToolCall{}, false
	}
	if v, ok := obj["id"]; ok && json.Unmarshal(v, &id) != nil {
		return ToolCall{}, false
	}
	args, ok := obj[argsKey]
	if !ok {
		return ToolCall{}, false
	}
	if len(args) > 0 && args[0] == '"' {
		var s string
		if json.Unmarshal(args, &s) != nil {
			return ToolCall{}, false
		}
		args = json.RawMessage(s)
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil || m == nil {
		return ToolCall{}, false
	}
	var buf bytes.Buffer
	if json.Compact(&buf, args) != nil {
		return ToolCall{}, false
	}
	return ToolCall{ID: id, Type: "function", Function: FunctionCall{Name: name, Arguments: buf.String()}}, true
}
