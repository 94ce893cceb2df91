package harness

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webgguf/webgguf/internal/longtest"
)

// TestViteApp builds examples/vite — a Vite app that depends on the webgguf
// package — with the engine freshly built into the package's dist/, serves
// the bundle and runs it under the strict CSP: the bundler must have emitted
// the engine's assets (the WebGPU runtime included, so backend 'webgpu'
// loads; 'auto' would pick the CPU on the harness's software adapter), and
// the app's greedy tokens must equal llama.cpp's (testdata/ref; the first
// 12, all 32 with the long tag).
func TestViteApp(t *testing.T) {
	e := setup(t)
	root, err := RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	app := filepath.Join(root, "examples", "vite")
	if _, err := os.Stat(filepath.Join(app, "node_modules", "vite")); err != nil {
		t.Fatalf("examples/vite has no node_modules: run make deps (cd examples/vite && npm ci): %v", err)
	}
	ctx := context.Background()
	// What make npm does: the release engine in the package's dist/.
	if _, err := BuildWasm(ctx, root, "./wasm", filepath.Join(root, "jsbindings", "dist")); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	cmd := exec.CommandContext(ctx, "npx", "--no-install", "vite", "build", "--outDir", out, "--emptyOutDir")
	cmd.Dir = app
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("vite build: %v\n%s", err, b)
	}
	assets, err := os.ReadDir(filepath.Join(out, "assets"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range assets {
		names = append(names, a.Name())
	}
	for _, want := range []string{"worker-", "engine-", "wasm_exec-", "webgpu-runtime-"} {
		if !slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, want) }) {
			t.Fatalf("the bundle lacks the engine asset %s*: %v", want, names)
		}
	}
	srv, err := Serve(root, map[string]string{"/vite/": out})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	var r ref
	b, err := os.ReadFile("../../testdata/ref/tiny-llama-q8_0.ref.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	// The 280-token prompt (prefill in several micro-batches) and the first
	// 12 of llama.cpp's 32 greedy tokens (SwiftShader decodes about 2 a
	// second), all 32 with the long tag. Its load, prefill and decode took
	// over 2 minutes on a loaded 2-core machine, hence 5.
	p := r.Prompts[4]
	n := 12
	if longtest.Enabled {
		n = len(p.Greedy)
	}
	want := p.Greedy[:min(n, len(p.Greedy))]
	q := url.Values{"model": {"/testdata/models/tiny-llama-q8_0.gguf"}, "prompt": {p.Prompt}, "n": {strconv.Itoa(len(want))}, "backend": {"webgpu"}}
	res, err := e.browser.RunPage(ctx, srv.URL+"/vite/index.html?"+q.Encode(), 5*time.Minute)
	if err != nil {
		t.Fatalf("%v\nconsole:\n%s", err, strings.Join(res.Console, "\n"))
	}
	var got struct {
		Tokens  []int32
		Text    string
		Backend string
	}
	if err := json.Unmarshal(res.Value, &got); err != nil {
		t.Fatalf("page result %s: %v", res.Value, err)
	}
	if got.Backend != "webgpu" {
		t.Errorf("vite app with backend 'webgpu' ran on %q: the bundle's WebGPU runtime was not loaded", got.Backend)
	}
	// The text of a prefix of the tokens is a prefix of llama.cpp's text.
	okText := got.Text == p.GreedyText
	if len(want) < len(p.Greedy) {
		okText = got.Text != "" && strings.HasPrefix(p.GreedyText, got.Text)
	}
	if !slices.Equal(got.Tokens, want) || !okText {
		t.Fatalf("vite app: %v %q, llama.cpp %v %q", got.Tokens, got.Text, want, p.GreedyText)
	}
}
