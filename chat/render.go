package chat

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/webgguf/webgguf/chat/internal/gonja/builtins"
	"github.com/webgguf/webgguf/chat/internal/gonja/config"
	"github.com/webgguf/webgguf/chat/internal/gonja/exec"
	"github.com/webgguf/webgguf/chat/internal/gonja/loaders"
	"github.com/webgguf/webgguf/chat/internal/gonja/parser"
)

// MaxOutput bounds a rendered prompt (bytes). A template from an untrusted
// file could otherwise loop its way to any size; real prompts are far below.
const MaxOutput = 16 << 20

// MaxTemplate bounds the template source (bytes); real ones are a few KiB.
const MaxTemplate = 1 << 20

// Options are the variables a chat template sees besides messages.
type Options struct {
	// AddGenerationPrompt asks the template to end with the assistant's
	// header so that the model writes the next turn.
	AddGenerationPrompt bool
	// BOSToken and EOSToken are the text of the model's BOS and EOS tokens
	// (bos_token, eos_token).
	BOSToken, EOSToken string
	// Tools are tool definitions (OpenAI style: {"type": "function",
	// "function": {...}}) as Go values, structs or json.RawMessage. Templates
	// see none when it is empty. Object keys keep their order except in Go
	// maps, whose keys arrive sorted.
	Tools []any
	// Extra are further variables (enable_thinking, date_string, ...). They
	// cannot replace messages, tools, the tokens or add_generation_prompt.
	Extra map[string]any
	// Now is the time strftime_now formats; zero means time.Now().
	Now time.Time
}

// Template is a parsed chat template, reusable across renders and safe for
// concurrent use.
type Template struct {
	tpl *exec.Template
}

// jinjaConfig is transformers' Jinja environment: blocks eat the newline
// after them and the indentation before them, and a template's final newline
// is dropped.
func jinjaConfig() *config.Config {
	c := config.New()
	c.TrimBlocks = true
	c.LeftStripBlocks = true
	c.KeepTrailingNewline = false
	return c
}

// environment is gonja's builtins with tojson and range replaced. The global
// builtins.Filters set is copied, never modified.
var environment = func() *exec.Environment {
	filters := exec.NewFilterSet(map[string]exec.FilterFunction{}).Update(builtins.Filters)
	if err := filters.Replace("tojson", filterToJSON); err != nil {
		panic(err) // gonja without tojson: a broken dependency, found by every test
	}
	globals := exec.EmptyContext().Update(builtins.GlobalFunctions).Update(builtins.GlobalVariables)
	globals.Set("range", rangeFunction)
	// lipsum(n) writes n paragraphs of filler: unbounded output no chat
	// template needs.
	globals.Set("lipsum", nil)
	// A chat template is one self-contained string: include, import, from
	// and extends could only load the template itself again, recursing
	// without bound, so they are left out.
	structures := map[string]parser.ControlStructureParser{}
	for _, name := range []string{"autoescape", "block", "filter", "for", "if", "macro", "raw", "set", "with", "do", "break", "continue", "trans", "call", "generation"} {
		if p, ok := builtins.ControlStructures.Get(name); ok {
			structures[name] = p
		}
	}
	return &exec.Environment{
		Context:           globals,
		Filters:           filters,
		Tests:             builtins.Tests,
		ControlStructures: exec.NewControlStructureSet(structures),
		Methods:           builtins.Methods,
	}
}()

// Parse compiles a chat template. Errors are *SyntaxError; one that
// exceeds a limit (template size, nesting depth) wraps a *LimitError.
func Parse(source string) (t *Template, err error) {
	if len(source) > MaxTemplate {
		return nil, &SyntaxError{Err: &LimitError{Limit: "template bytes", Max: MaxTemplate, Got: int64(len(source))}}
	}
	defer func() {
		if r := recover(); r != nil {
			t, err = nil, &SyntaxError{Err: recovered("parser", r)}
		}
	}()
	loader, err := loaders.NewMemoryLoader(map[string]string{"/chat_template": source})
	if err != nil {
		return nil, &SyntaxError{Err: err}
	}
	tpl, err := exec.NewTemplate("/chat_template", jinjaConfig(), loader, environment)
	if err != nil {
		if le, ok := asLimit(err); ok {
			return nil, &SyntaxError{Err: le}
		}
		return nil, &SyntaxError{Err: stripSource(err, source)}
	}
	return &Template{tpl: tpl}, nil
}

// Render parses template and renders messages with it. See Template.Render.
func Render(template string, messages []Message, opts Options) (string, error) {
	t, err := Parse(template)
	if err != nil {
		return "", err
	}
	return t.Render(messages, opts)
}

// Render renders messages. Errors are *RaisedError (the template called
// raise_exception), *RuntimeError or *ValueError. A template that exceeds
// a limit (see Limits) fails with a *RuntimeError wrapping a *LimitError.
func (t *Template) Render(messages []Message, opts Options) (out string, err error) {
	return t.render(messages, opts, exec.NewBudget())
}

// render is Render spending budget, which tests read back.
func (t *Template) render(messages []Message, opts Options, budget *exec.Budget) (out string, err error) {
	ctx, raised, err := buildContext(messages, opts)
	if err != nil {
		return "", err
	}
	w := &limitedBuilder{max: MaxOutput}
	defer func() {
		if r := recover(); r != nil {
			out, err = "", &RuntimeError{Err: recovered("renderer", r)}
		}
	}()
	if err := t.tpl.ExecuteBudget(w, exec.NewContext(ctx), budget); err != nil {
		if *raised != nil {
			return "", *raised
		}
		var re *RaisedError
		if errors.As(err, &re) {
			return "", re
		}
		var le *LimitError
		if errors.As(err, &le) {
			return "", &RuntimeError{Err: le}
		}
		if le, ok := asLimit(err); ok {
			return "", &RuntimeError{Err: le}
		}
		return "", &RuntimeError{Err: err}
	}
	if *raised != nil {
		// gonja may print an error value instead of failing; the template
		// still asked to stop.
		return "", *raised
	}
	return w.sb.String(), nil
}

// buildContext makes the template's variables. raised receives the first
// raise_exception call, which gonja may otherwise flatten into a string.
func buildContext(messages []Message, opts Options) (map[string]any, **RaisedError, error) {
	msgs, err := toJinja(messages)
	if err != nil {
		return nil, nil, err
	}
	ctx := make(map[string]any, len(opts.Extra)+8)
	for k, v := range opts.Extra {
		nv, err := normalize(v)
		if err != nil {
			return nil, nil, &ValueError{Field: "extra." + k, Err: err}
		}
		ctx[k] = nv
	}
	var tools any // none when empty, like transformers' tools=None
	if len(opts.Tools) > 0 {
		list, err := normalize(opts.Tools)
		if err != nil {
			return nil, nil, &ValueError{Field: "tools", Err: err}
		}
		tools = list
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	raised := new(*RaisedError)
	ctx["messages"] = msgs
	ctx["tools"] = tools
	ctx["add_generation_prompt"] = opts.AddGenerationPrompt
	ctx["bos_token"] = opts.BOSToken
	ctx["eos_token"] = opts.EOSToken
	ctx["raise_exception"] = func(params *exec.VarArgs) (string, error) {
		msg := ""
		if len(params.Args) > 0 {
			msg = params.Args[0].String()
		}
		e := &RaisedError{Message: msg}
		if *raised == nil {
			*raised = e
		}
		return "", e
	}
	ctx["strftime_now"] = func(params *exec.VarArgs) (string, error) {
		if len(params.Args) != 1 || !params.Args[0].IsString() {
			return "", fmt.Errorf("strftime_now takes one format string")
		}
		return strftime(params.Args[0].String(), now), nil
	}
	return ctx, raised, nil
}

// stripSource drops the template text gonja pastes into parse errors: the
// error should say where, not repeat kilobytes of template.
func stripSource(err error, source string) error {
	if source == "" {
		return err
	}
	msg := strings.ReplaceAll(err.Error(), "'"+source+"'", "template")
	return errors.New(msg)
}

// recovered turns what the parser or renderer panicked with into an error.
// gonja aborts on an exceeded limit by panicking with *exec.LimitError (a
// limit may be hit where no error can be returned); anything else is a bug
// in gonja, reported rather than crashing the caller.
func recovered(who string, r any) error {
	if le, ok := r.(*exec.LimitError); ok {
		return &LimitError{Limit: le.Limit, Max: le.Max, Got: le.Got}
	}
	return fmt.Errorf("%s panicked: %v", who, r)
}

// limitedBuilder is a strings.Builder that refuses to grow past max.
type limitedBuilder struct {
	sb  strings.Builder
	max int
}

// Write implements io.Writer, failing once the limit would be passed.
func (w *limitedBuilder) Write(p []byte) (int, error) {
	if w.sb.Len()+len(p) > w.max {
		return 0, &LimitError{Limit: "output bytes", Max: int64(w.max), Got: int64(w.sb.Len() + len(p))}
	}
	return w.sb.Write(p)
}
