package enginehost

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestGenerateConstrained: a JSON schema and a GBNF grammar constrain
// Generate, greedy and sampled; the compiled grammar is reused by the
// next request; bad grammars and schemas are invalid-argument errors that
// say where.
func TestGenerateConstrained(t *testing.T) {
	h := loadHost(t, gotiny, 512)
	ctx := context.Background()
	schema := `{"type":"object","properties":{"lang":{"enum":["go","c"]},"n":{"type":"integer","minimum":0,"maximum":99}},"required":["lang","n"]}`
	for _, temp := range []float32{0, 0.9} {
		req := greedy(200)
		req.IgnoreEOS = false
		req.Sampling.Temperature, req.Sampling.Seed = temp, 5
		req.Prompt = "package main\n"
		req.JSONSchema = schema
		var streamed strings.Builder
		resp, err := h.Generate(ctx, req, func(_ int32, s string) error { streamed.WriteString(s); return nil })
		if err != nil {
			t.Fatal(err)
		}
		var v struct {
			Lang string
			N    *int
		}
		if err := json.Unmarshal([]byte(resp.Text), &v); err != nil || (v.Lang != "go" && v.Lang != "c") || v.N == nil || *v.N < 0 || *v.N > 99 || resp.Finish != "stop" {
			t.Fatalf("temp %g: %q (finish %s): %v %+v", temp, resp.Text, resp.Finish, err, v)
		}
		if streamed.String() != resp.Text {
			t.Errorf("streamed %q, returned %q", streamed.String(), resp.Text)
		}
	}
	m, _ := h.model()
	if n := len(m.grammars.compiled); n != 1 {
		t.Errorf("%d compiled grammars after two requests with one schema, want 1", n)
	}
	req := greedy(40)
	req.IgnoreEOS = false
	req.Prompt = "x"
	req.Grammar = `root ::= "yes" | "no"`
	resp, err := h.Generate(ctx, req, func(int32, string) error { return nil })
	if err != nil || (resp.Text != "yes" && resp.Text != "no") {
		t.Fatalf("grammar: %q %v", resp.Text, err)
	}
	for _, tc := range []struct{ gbnf, schema, want string }{
		{"root ::= \"a\"\nx ::= [", "", "2:"},
		{"root ::= undefined", "", "undefined"},
		{"", `{"type":"string","format":"email"}`, "/format"},
		{"", `{"type":"object","properties":{"a":{"type":"number","minimum":1}}}`, "/properties/a/minimum"},
		{"", `{"type":`, "invalid JSON"},
		{`root ::= "a"`, `{}`, "exclude"},
	} {
		req.Grammar, req.JSONSchema = tc.gbnf, tc.schema
		_, err := h.Generate(ctx, req, func(int32, string) error { return nil })
		if kind(err) != KindInvalidArgument || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q %q: %v (%s), want invalid-argument naming %q", tc.gbnf, tc.schema, err, kind(err), tc.want)
		}
	}
}
