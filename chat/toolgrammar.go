package chat

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/webgguf/webgguf/sample/grammar"
	"github.com/webgguf/webgguf/sample/jsonschema"
)

// ToolError reports tool definitions or a tool choice that cannot be used:
// bad JSON, a tool without a name, a forced name no tool has, a template
// without tool support, or a parameter schema the grammar cannot enforce.
type ToolError struct {
	Msg string
	Err error // the schema converter's error, if that is the cause
}

// Error implements error.
func (e *ToolError) Error() string {
	if e.Err != nil {
		return "tools: " + e.Msg + ": " + e.Err.Error()
	}
	return "tools: " + e.Msg
}

// Unwrap returns the underlying error, if any.
func (e *ToolError) Unwrap() error { return e.Err }

// toolDef is the part of an OpenAI tool definition a grammar needs.
type toolDef struct {
	Type     string `json:"type"`
	Function struct {
		Name       string          `json:"name"`
		Parameters json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// callSchema is a JSON Schema for one call object; struct field order is
// the order the model must write the members in.
type callSchema struct {
	Type       string          `json:"type"`
	Properties json.RawMessage `json:"properties"`
	Required   []string        `json:"required"`
	Additional bool            `json:"additionalProperties"`
}

// ToolCallGrammar returns a GBNF grammar (start rule "root") that makes a
// model write exactly one tool call in format f: to the tool called name,
// or to any of tools when name is empty (tool_choice "required"). The call's
// arguments follow that tool's parameters schema, converted by package
// sample/jsonschema, so that whatever the model samples parses with
// ParseToolCalls into a call whose arguments validate. tools is the JSON
// array of OpenAI tool definitions. Errors are *ToolError.
func ToolCallGrammar(f ToolFormat, tools []byte, name string) (string, error) {
	if f == NoTools {
		return "", &ToolError{Msg: "the chat template has no tool-call format"}
	}
	var defs []toolDef
	if err := json.Unmarshal(tools, &defs); err != nil {
		return "", &ToolError{Msg: "tools are not a JSON array of tool definitions", Err: err}
	}
	argsKey := "arguments"
	if f == Llama3 {
		argsKey = "parameters"
	}
	var alts []json.RawMessage
	for i, d := range defs {
		if d.Function.Name == "" {
			return "", &ToolError{Msg: fmt.Sprintf("tools[%d] has no function.name", i)}
		}
		if d.Type != "" && d.Type != "function" {
			return "", &ToolError{Msg: fmt.Sprintf("tools[%d].type is %q, not \"function\"", i, d.Type)}
		}
		if name != "" && d.Function.Name != name {
			continue
		}
		params := d.Function.Parameters
		if len(params) == 0 || string(params) == "null" {
			params = json.RawMessage(`{"type":"object"}`)
		}
		nameJSON, _ := json.Marshal(d.Function.Name)
		props := `{"name":{"const":` + string(nameJSON) + `},"` + argsKey + `":` + string(params)
		required := []string{"name", argsKey}
		if f == MistralNemo {
			// Mistral's template refuses ids that are not 9 alphanumerics.
			props += `,"id":{"type":"string","pattern":"^[a-zA-Z0-9]{9}$"}`
			required = append(required, "id")
		}
		b, err := json.Marshal(callSchema{Type: "object", Properties: json.RawMessage(props + "}"), Required: required})
		if err != nil {
			return "", &ToolError{Msg: fmt.Sprintf("tools[%d].function.parameters is not JSON", i), Err: err}
		}
		alts = append(alts, b)
	}
	if len(alts) == 0 {
		if name != "" {
			return "", &ToolError{Msg: fmt.Sprintf("tool_choice names %q, which is not among the tools", name)}
		}
		return "", &ToolError{Msg: "tool_choice requires a call but there are no tools"}
	}
	schema := alts[0]
	if len(alts) > 1 {
		b, _ := json.Marshal(map[string][]json.RawMessage{"anyOf": alts})
		schema = b
	}
	body, err := jsonschema.ToGrammar(schema)
	if err != nil {
		return "", &ToolError{Msg: "a tool's parameters schema", Err: err}
	}
	body, err = renameRoot(body, "tool-call")
	if err != nil {
		return "", &ToolError{Msg: "a tool's parameters schema", Err: err}
	}
	var root string
	switch f {
	case Hermes:
		root = `root ::= "<tool_call>\n" tool-call "\n</tool_call>"`
	case Llama3:
		root = `root ::= tool-call`
	case MistralNemo:
		root = `root ::= "[TOOL_CALLS][" tool-call "]"`
	}
	src := root + "\n" + body
	if _, err := grammar.ParseCompile(src); err != nil {
		return "", &ToolError{Msg: "the tool-call grammar does not compile", Err: err}
	}
	return src, nil
}

// renameRoot renames the schema grammar's start rule so that a wrapper can
// be the root. A schema that refers to itself ("$ref": "#") would make its
// body name root; that is refused rather than silently pointed at the
// wrapper.
func renameRoot(src, to string) (string, error) {
	lines := strings.Split(src, "\n")
	found := false
	for i, l := range lines {
		if strings.HasPrefix(l, "root ::= ") {
			lines[i] = to + l[len("root"):]
			found = true
		}
	}
	if !found {
		return "", errors.New("the schema grammar has no root rule")
	}
	out := strings.Join(lines, "\n")
	g, err := grammar.Parse(out)
	if err != nil {
		return "", err
	}
	if _, err := grammar.Compile(g, to); err != nil {
		return "", errors.New("a schema that refers to its own root is not supported for tools")
	}
	return out, nil
}
