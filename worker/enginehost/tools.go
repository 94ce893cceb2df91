package enginehost

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/webgguf/webgguf/chat"
	"github.com/webgguf/webgguf/glue"
)

// maxToolsBytes bounds the tool definitions of one request.
const maxToolsBytes = 1 << 20

// toolState is what a request's tools change in a generation: the tool
// definitions the template renders, the format the output is parsed in,
// and whether it is parsed at all (tool_choice "none" shows the tools but
// takes the output as plain text, as OpenAI does).
type toolState struct {
	defs   []any
	format chat.ToolFormat
	parse  bool
}

// prepareTools checks a request's tools and tool choice against the model's
// chat template. A forced choice ("required" or a function) sets the
// request's grammar to one that makes the model write such a call. Asking
// a template without a tool-call format for tools is an invalid-argument
// error that names the template's situation.
func (m *loaded) prepareTools(req *Request) (*toolState, error) {
	if len(req.Tools) == 0 {
		if req.ToolChoice == "required" || req.ToolChoice == "function" {
			return nil, invalid("tool_choice " + strconv.Quote(req.ToolChoice) + " needs tools")
		}
		return &toolState{}, nil
	}
	if !req.Chat {
		return nil, invalid("tools need a chat request (messages), not a prompt")
	}
	if len(req.Tools) > maxToolsBytes {
		return nil, invalid("tools are longer than 1 MiB")
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(req.Tools, &raw); err != nil {
		return nil, invalid("tools must be a JSON array of tool definitions: " + err.Error())
	}
	st := &toolState{format: chat.DetectToolFormat(m.info.ChatTemplate)}
	if st.format == chat.NoTools {
		which := "the model's chat template"
		if m.info.ChatTemplate == "" {
			which = "the ChatML fallback template (the model has no usable chat template)"
		}
		if m.info.Name != "" {
			which += " of " + strconv.Quote(m.info.Name)
		}
		return nil, invalid(which + " has no tool-call format (known: Hermes 2 Pro/Qwen <tool_call>, Llama 3.x JSON, Mistral Nemo [TOOL_CALLS])")
	}
	for _, r := range raw {
		st.defs = append(st.defs, r)
	}
	switch req.ToolChoice {
	case "", "auto":
		st.parse = true
	case "none":
	case "required", "function":
		if req.Grammar != "" || req.JSONSchema != "" {
			return nil, invalid("a forced tool_choice excludes grammar and response_format")
		}
		name := ""
		if req.ToolChoice == "function" {
			if name = req.ToolName; name == "" {
				return nil, invalid("tool_choice.function.name is empty")
			}
		}
		g, err := chat.ToolCallGrammar(st.format, req.Tools, name)
		if err != nil {
			return nil, invalid(err.Error())
		}
		req.Grammar = g
		st.parse = true
	default:
		return nil, invalid("tool_choice must be \"auto\", \"none\", \"required\" or a function, got " + strconv.Quote(req.ToolChoice))
	}
	return st, nil
}

// chatPromptTools renders and tokenizes msgs (engine.ChatFormat) with the
// request's tools shown to the template.
func (m *loaded) chatPromptTools(msgs []chat.Message, st *toolState) ([]int32, error) {
	f := *m.format
	if len(st.defs) > 0 {
		f.Options.Tools = st.defs
	}
	ids, err := f.Prompt(msgs)
	if err != nil {
		return nil, classifyTemplate(err)
	}
	return ids, nil
}

// finish parses the generated text into tool calls; when there are any,
// the response's text becomes the content around them and its finish
// reason "tool_calls". Calls without an id get one ("call_<n>"), which
// the next turn's tool message refers to.
func (st *toolState) finish(resp *glue.GenerateResponse) {
	if !st.parse {
		return
	}
	content, calls := chat.ParseToolCalls(st.format, resp.Text)
	if len(calls) == 0 {
		return
	}
	type fn struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type call struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function fn     `json:"function"`
	}
	out := make([]call, len(calls))
	for i, c := range calls {
		id := c.ID
		if id == "" {
			id = toolCallID(i)
		}
		out[i] = call{ID: id, Type: "function", Function: fn{Name: c.Function.Name, Arguments: c.Function.Arguments.(string)}}
	}
	b, _ := json.Marshal(out)
	resp.ToolCalls = string(b)
	resp.Text = content
	resp.Finish = "tool_calls"
}

// toolCallID is a call's id when the model wrote none: 9 alphanumerics,
// the only shape Mistral's template accepts back.
func toolCallID(i int) string {
	s := "call" + strconv.Itoa(i)
	return s + strings.Repeat("0", 9-len(s))
}

// messagesFromJSON decodes a conversation of OpenAI messages. Arguments
// sent as a JSON string (OpenAI's form) that hold an object become that
// object, since templates such as Llama 3.2's and Mistral's write them with
// tojson and would otherwise quote them twice.
func messagesFromJSON(s string) ([]chat.Message, error) {
	var msgs []chat.Message
	d := json.NewDecoder(strings.NewReader(s))
	if err := d.Decode(&msgs); err != nil {
		return nil, invalid("messages: " + err.Error())
	}
	for i := range msgs {
		if msgs[i].Role == "" {
			return nil, invalid("messages[" + itoa(int64(i)) + "].role is empty")
		}
		for j := range msgs[i].ToolCalls {
			f := &msgs[i].ToolCalls[j].Function
			if a, ok := f.Arguments.(string); ok {
				t := bytes.TrimSpace([]byte(a))
				if len(t) > 0 && t[0] == '{' && json.Valid(t) {
					f.Arguments = json.RawMessage(t)
				}
			}
		}
	}
	return msgs, nil
}
