package chat

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// oracle is a long-running Node process rendering with @huggingface/jinja
// (scripts/jinja-oracle), one JSON line per request and reply.
type oracle struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	mu  sync.Mutex
}

type oracleReply struct {
	Output *string `json:"output"`
	Error  *string `json:"error"`
}

// startOracle starts @huggingface/jinja (scripts/jinja-oracle/render.mjs).
func startOracle(t *testing.T) *oracle {
	t.Helper()
	dir := filepath.Join("..", "scripts", "jinja-oracle")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@huggingface", "jinja")); err != nil {
		t.Fatalf("the Jinja oracle is not installed (%v): run `make deps` or `npm ci` in %s", err, dir)
	}
	return startProcess(t, dir, "node", "render.mjs")
}

// startPythonOracle starts Python's Jinja2 set up as transformers does
// (scripts/jinja-oracle/render_jinja2.py).
func startPythonOracle(t *testing.T) *oracle {
	t.Helper()
	return startProcess(t, filepath.Join("..", "scripts", "jinja-oracle"), "python3", "render_jinja2.py")
}

func startProcess(t *testing.T, dir, program string, args ...string) *oracle {
	t.Helper()
	path, err := exec.LookPath(program)
	if err != nil {
		t.Fatalf("%s is needed for the Jinja oracles: %v", program, err)
	}
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	o := &oracle{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
		}
	})
	return o
}

func (o *oracle) render(template string, context map[string]any) (oracleReply, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	req, err := json.Marshal(map[string]any{"template": template, "context": context})
	if err != nil {
		return oracleReply{}, err
	}
	if _, err := o.in.Write(append(req, '\n')); err != nil {
		return oracleReply{}, err
	}
	line, err := o.out.ReadBytes('\n')
	if err != nil {
		return oracleReply{}, err
	}
	var r oracleReply
	if err := json.Unmarshal(line, &r); err != nil {
		return oracleReply{}, fmt.Errorf("oracle reply %q: %v", line, err)
	}
	return r, nil
}

// judge compares Go's renders with @huggingface/jinja's, and settles their
// disagreements with Python's Jinja2 (the implementation transformers uses,
// hence the reference for what a template means): Go must equal
// @huggingface/jinja, or, where that differs from Python, equal Python.
type judge struct {
	hf, py                         *oracle
	same, bothFailed, hfDeviations int
}

func newJudge(t *testing.T) *judge {
	return &judge{hf: startOracle(t), py: startPythonOracle(t)}
}

// agree reports whether a reply matches Go's result: the same string, or
// both failing (with the same raise_exception message when Go's failure is
// one).
func agree(r oracleReply, got string, gotErr error) bool {
	if r.Error != nil || gotErr != nil {
		if r.Error == nil || gotErr == nil {
			return false
		}
		var re *RaisedError
		return !errors.As(gotErr, &re) || strings.Contains(*r.Error, re.Message)
	}
	return *r.Output == got
}

func (j *judge) check(t *testing.T, label, src string, ctx map[string]any, got string, gotErr error) {
	t.Helper()
	want, err := j.hf.render(src, ctx)
	if err != nil {
		t.Fatalf("%s: oracle: %v", label, err)
	}
	if agree(want, got, gotErr) {
		if gotErr != nil {
			j.bothFailed++
		} else {
			j.same++
		}
		return
	}
	py, err := j.py.render(src, ctx)
	if err != nil {
		t.Fatalf("%s: python oracle: %v", label, err)
	}
	if agree(py, got, gotErr) && !agree(py, valueOr(want.Output), errOr(want.Error)) {
		j.hfDeviations++
		if os.Getenv("CHAT_ORACLE_VERBOSE") != "" {
			t.Logf("%s: @huggingface/jinja %s; Go and Jinja2 agree on %s", label, describe(want), describe(py))
		}
		return
	}
	t.Errorf("%s:\n       Go %s\n  hf/jinja %s\n   Jinja2 %s", label, describeGo(got, gotErr), describe(want), describe(py))
}

func valueOr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func errOr(s *string) error {
	if s == nil {
		return nil
	}
	return errors.New(*s)
}

func describe(r oracleReply) string {
	if r.Error != nil {
		return "failed: " + *r.Error
	}
	return fmt.Sprintf("%q", *r.Output)
}

func describeGo(got string, err error) string {
	if err != nil {
		return "failed: " + err.Error()
	}
	return fmt.Sprintf("%q", got)
}

// testConversation is one entry of testdata/conversations.json: the messages
// and tools are kept as raw JSON so the oracle receives exactly the text (and
// key order) the Go side decodes.
type testConversation struct {
	Name     string          `json:"name"`
	Messages json.RawMessage `json:"messages"`
	Tools    json.RawMessage `json:"tools"`
}

type testMessage struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	ToolCalls []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	ToolCallID       string `json:"tool_call_id"`
	Name             string `json:"name"`
	ReasoningContent string `json:"reasoning_content"`
}

func (c testConversation) decode(t *testing.T) ([]Message, []any) {
	t.Helper()
	var raw []testMessage
	if err := json.Unmarshal(c.Messages, &raw); err != nil {
		t.Fatalf("%s: %v", c.Name, err)
	}
	msgs := make([]Message, len(raw))
	for i, m := range raw {
		msgs[i] = Message{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, Name: m.Name, ReasoningContent: m.ReasoningContent}
		for _, tc := range m.ToolCalls {
			msgs[i].ToolCalls = append(msgs[i].ToolCalls, ToolCall{ID: tc.ID, Type: tc.Type,
				Function: FunctionCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments}})
		}
	}
	var tools []any
	if len(c.Tools) > 0 {
		var list []json.RawMessage
		if err := json.Unmarshal(c.Tools, &list); err != nil {
			t.Fatalf("%s tools: %v", c.Name, err)
		}
		for _, tl := range list {
			tools = append(tools, tl)
		}
	}
	return msgs, tools
}

func loadConversations(t *testing.T) ([]testConversation, []map[string]any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "conversations.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Conversations []testConversation `json:"conversations"`
		Extras        []map[string]any   `json:"extras"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f.Conversations, f.Extras
}

func loadTemplates(t *testing.T) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "templates", "*.jinja"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no templates in testdata/templates: %v", err)
	}
	out := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(p), ".jinja")] = string(b)
	}
	return out
}

// TestOracle renders every template with every conversation, both values of
// add_generation_prompt and each set of extra variables, in Go and in
// @huggingface/jinja, and requires identical strings, or both to fail (with
// the same raise_exception message when the template raised); where
// @huggingface/jinja departs from Python's Jinja2, Go must match Jinja2.
func TestOracle(t *testing.T) {
	j := newJudge(t)
	convs, extras := loadConversations(t)
	templates := loadTemplates(t)
	names := make([]string, 0, len(templates))
	for n := range templates {
		names = append(names, n)
	}
	sort.Strings(names)
	// strftime_now reads the clock on both sides: the oracles cannot be
	// given a date, so Go gets the current time too (a render straddling
	// midnight is the only way these differ).
	now := time.Now()
	for _, name := range names {
		src := templates[name]
		tpl, err := Parse(src)
		if err != nil {
			t.Errorf("%s: parse: %v", name, err)
			continue
		}
		for _, conv := range convs {
			msgs, tools := conv.decode(t)
			for _, extra := range extras {
				for _, agp := range []bool{false, true} {
					opts := Options{AddGenerationPrompt: agp, BOSToken: "<s>", EOSToken: "</s>", Tools: tools, Extra: extra, Now: now}
					label := fmt.Sprintf("%s/%s/agp=%v/extra=%v", name, conv.Name, agp, extra)
					got, gotErr := tpl.Render(msgs, opts)
					ctx := map[string]any{"messages": conv.Messages, "bos_token": "<s>", "eos_token": "</s>", "add_generation_prompt": agp, "tools": nil}
					if len(conv.Tools) > 0 {
						ctx["tools"] = conv.Tools
					}
					for k, v := range extra {
						ctx[k] = v
					}
					j.check(t, label, src, ctx, got, gotErr)
				}
			}
		}
	}
	t.Logf("%d renders identical to @huggingface/jinja, %d failing on both sides, %d where it departs from Jinja2 and Go matches Jinja2", j.same, j.bothFailed, j.hfDeviations)
	if j.same < 100 {
		t.Errorf("only %d identical renders: the comparison lost its coverage", j.same)
	}
}
