package chat

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Each fuzz input must render within fuzzTime and grow the live heap by at
// most fuzzHeap: the limits bound every template to about a second and a
// few hundred megabytes.
const (
	fuzzTime = 20 * time.Second
	fuzzHeap = 1 << 30
)

// FuzzRender: any template text either renders or fails with one of the
// package's error types within the time and memory above; it never panics
// or crashes the process. Seeds are the real templates in testdata and, in
// testdata/fuzz/FuzzRender, hostile ones (written by TestWriteFuzzCorpus).
func FuzzRender(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "templates", "*.jinja"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("{{ (a if b) }}{{ x[-1] }}{% for k, v in d.items() %}{% endfor %}")
	msgs := []Message{
		{Role: "system", Content: "s"},
		{Role: "user", Content: "u"},
		{Role: "assistant", Content: "a", ToolCalls: []ToolCall{{ID: "abcdefghi", Type: "function", Function: FunctionCall{Name: "f", Arguments: map[string]any{"x": 1}}}}},
		{Role: "tool", Content: "r", ToolCallID: "abcdefghi"},
	}
	opts := Options{AddGenerationPrompt: true, BOSToken: "<s>", EOSToken: "</s>",
		Tools: []any{map[string]any{"type": "function", "function": map[string]any{"name": "f"}}}}
	f.Fuzz(func(t *testing.T, src string) {
		err := renderGuarded(t, src, msgs, opts, fuzzTime, fuzzHeap)
		if err == nil {
			return
		}
		var se *SyntaxError
		var re *RuntimeError
		var ra *RaisedError
		var ve *ValueError
		if !errors.As(err, &se) && !errors.As(err, &re) && !errors.As(err, &ra) && !errors.As(err, &ve) {
			t.Fatalf("untyped error %T: %v", err, err)
		}
	})
}

// fuzzSeeds are the hostile templates of the checked-in corpus: issue 28's
// and their relatives, small enough to keep in the repository (nesting
// 5000 deep rather than 100000) and to run with every go test.
func fuzzSeeds() map[string]string {
	seeds := map[string]string{
		"parens-deep":    "{{ " + strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000) + " }}",
		"brackets-deep":  "{{ " + strings.Repeat("[", 5000) + "1" + strings.Repeat("]", 5000) + " }}",
		"blocks-deep":    strings.Repeat("{% if 1 %}", 2000) + strings.Repeat("{% endif %}", 2000),
		"operator-chain": "{{ 1" + strings.Repeat(" + 1", 3000) + " }}",
		"error-chain":    "{{ nosuch()" + strings.Repeat(" ~ '"+strings.Repeat("z", 20)+"'", 490) + " }}",
	}
	keep := []string{"replace to 1 GB", "replace doubling", "indent to 1 GB", "format ten 16 MB",
		"join 100 x 16 MB", "tojson 100 x 16 MB", "string 100 x 16 MB", "recursive loop",
		"exponential macro", "center", "wordwrap", "list doubling", "huge range",
		"shared strings print", "nest 100000", "string accumulation", "namespace accumulation",
		"batch", "slice", "percent format", "str.format repeat", "format index repeat", "escape",
		"split", "str.join", "expandtabs", "sort big strings", "macro output", "pprint",
		"strftime", "string iteration", "output bomb"}
	byName := map[string]string{}
	for _, c := range hostileCases() {
		byName[c.name] = c.src
	}
	for _, name := range keep {
		src, ok := byName[name]
		if !ok {
			panic("no hostile case " + name)
		}
		seeds[strings.NewReplacer(" ", "-", ".", "-").Replace(name)] = src
	}
	return seeds
}

// TestWriteFuzzCorpus writes fuzzSeeds to testdata/fuzz/FuzzRender when
// CHAT_WRITE_CORPUS is set, and otherwise checks the files are current.
func TestWriteFuzzCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzRender")
	for name, src := range fuzzSeeds() {
		want := fmt.Sprintf("go test fuzz v1\nstring(%s)\n", strconv.Quote(src))
		path := filepath.Join(dir, "hostile-"+name)
		if os.Getenv("CHAT_WRITE_CORPUS") != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Errorf("%s is missing or stale (CHAT_WRITE_CORPUS=1 go test -run TestWriteFuzzCorpus rewrites it): %v", path, err)
		}
	}
}
