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

func startOracle(t *testing.T) *oracle {
	t.Helper()
	dir := filepath.Join("..", "scripts", "jinja-oracle")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@huggingface", "jinja")); err != nil {
		t.Fatalf("the Jinja oracle is not installed (%v): run `make deps` or `npm ci` in %s", err, dir)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is needed for the Jinja oracle: %v", err)
	}
	cmd := exec.Command(node, "render.mjs")
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
// the same raise_exception message when the template raised).
func TestOracle(t *testing.T) {
	o := startOracle(t)
	convs, extras := loadConversations(t)
	templates := loadTemplates(t)
	names := make([]string, 0, len(templates))
	for n := range templates {
		names = append(names, n)
	}
	sort.Strings(names)
	// strftime_now reads the clock on both sides: the oracle cannot be given
	// a date, so Go gets the current time too (a render straddling midnight
	// is the only way these differ).
	now := time.Now()
	compared, bothFailed := 0, 0
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
					ctx := map[string]any{"messages": conv.Messages, "bos_token": "<s>", "eos_token": "</s>", "add_generation_prompt": agp}
					if len(conv.Tools) > 0 {
						ctx["tools"] = conv.Tools
					} else {
						ctx["tools"] = nil
					}
					for k, v := range extra {
						ctx[k] = v
					}
					want, err := o.render(src, ctx)
					if err != nil {
						t.Fatalf("%s: oracle: %v", label, err)
					}
					switch {
					case want.Error != nil && gotErr != nil:
						bothFailed++
						if os.Getenv("CHAT_ORACLE_VERBOSE") != "" {
							t.Logf("%s: both failed: oracle %q; Go %v", label, *want.Error, gotErr)
						}
						var re *RaisedError
						if errors.As(gotErr, &re) && !strings.Contains(*want.Error, re.Message) {
							t.Errorf("%s: raised %q, oracle failed with %q", label, re.Message, *want.Error)
						}
					case want.Error != nil:
						t.Errorf("%s: oracle failed (%s) but Go rendered %q", label, *want.Error, got)
					case gotErr != nil:
						t.Errorf("%s: Go failed (%v) but oracle rendered %q", label, gotErr, *want.Output)
					case got != *want.Output:
						t.Errorf("%s:\n got %q\nwant %q", label, got, *want.Output)
					default:
						compared++
					}
				}
			}
		}
	}
	t.Logf("%d renders identical to @huggingface/jinja, %d failing on both sides", compared, bothFailed)
	if compared < 100 {
		t.Errorf("only %d identical renders: the comparison lost its coverage", compared)
	}
}
