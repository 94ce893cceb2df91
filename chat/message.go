package chat

import "encoding/json"

// Message is one turn of a conversation, shaped like the OpenAI and Hugging
// Face chat message dictionaries that templates index into.
type Message struct {
	// Role is "system", "user", "assistant" or "tool" (templates may accept
	// others).
	Role string `json:"role"`
	// Content is the message text. Templates always see it, empty or not.
	Content string `json:"content"`
	// ToolCalls are the calls an assistant turn made; templates see
	// message.tool_calls only when there is at least one.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID links a tool turn to the call it answers (message.tool_call_id).
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Name is the tool's name on a tool turn (message.name), if set.
	Name string `json:"name,omitempty"`
	// ReasoningContent is an assistant's separated chain of thought
	// (message.reasoning_content, read by Qwen3-style templates), if set.
	ReasoningContent string `json:"reasoning_content,omitempty"`
}

// ToolCall is one function call requested by an assistant turn.
type ToolCall struct {
	// ID is the call's identifier (tool_call.id); templates see it only when set.
	ID string `json:"id,omitempty"`
	// Type is normally "function"; templates see it only when set.
	Type string `json:"type,omitempty"`
	// Function names the function and its arguments.
	Function FunctionCall `json:"function"`
}

// FunctionCall is the function part of a ToolCall.
type FunctionCall struct {
	// Name is the function's name.
	Name string `json:"name"`
	// Arguments are the call's arguments: a JSON object as a Go value
	// (map[string]any) or a JSON string, as the template expects.
	Arguments any `json:"arguments"`
}

// UnmarshalJSON keeps object arguments as raw JSON, so that their key order
// reaches the template (decoding into a Go map would sort the keys); string
// arguments stay strings.
func (f *FunctionCall) UnmarshalJSON(b []byte) error {
	var aux struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	f.Name, f.Arguments = aux.Name, nil
	if len(aux.Arguments) > 0 && aux.Arguments[0] == '"' {
		var s string
		if err := json.Unmarshal(aux.Arguments, &s); err != nil {
			return err
		}
		f.Arguments = s
	} else if len(aux.Arguments) > 0 && string(aux.Arguments) != "null" {
		f.Arguments = aux.Arguments
	}
	return nil
}

// toJinja turns messages into the ordered dictionaries templates index,
// leaving optional keys out so that "is defined" tests behave as with Python
// dictionaries.
func toJinja(messages []Message) ([]any, error) {
	out := make([]any, len(messages))
	for i, m := range messages {
		kv := []any{"role", m.Role, "content", m.Content}
		if len(m.ToolCalls) > 0 {
			calls := make([]any, len(m.ToolCalls))
			for j, c := range m.ToolCalls {
				args, err := normalize(c.Function.Arguments)
				if err != nil {
					return nil, &ValueError{Field: fmtField("messages[%d].tool_calls[%d].function.arguments", i, j), Err: err}
				}
				var call []any
				if c.ID != "" {
					call = append(call, "id", c.ID)
				}
				if c.Type != "" {
					call = append(call, "type", c.Type)
				}
				call = append(call, "function", dictOf("name", c.Function.Name, "arguments", args))
				calls[j] = dictOf(call...)
			}
			kv = append(kv, "tool_calls", calls)
		}
		if m.ToolCallID != "" {
			kv = append(kv, "tool_call_id", m.ToolCallID)
		}
		if m.Name != "" {
			kv = append(kv, "name", m.Name)
		}
		if m.ReasoningContent != "" {
			kv = append(kv, "reasoning_content", m.ReasoningContent)
		}
		out[i] = dictOf(kv...)
	}
	return out, nil
}
