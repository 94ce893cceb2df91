//go:build !js

package webgpu

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The worker loads wasm_exec.js and the jscheck program; the program posts
// its JSON report, which the worker forwards to the page.
const workerJS = `
importScripts("/wasm_exec.js");
const go = new Go();
const fwd = self.postMessage.bind(self);
WebAssembly.instantiateStreaming(fetch("/jscheck.wasm"), go.importObject)
  .then((r) => go.run(r.instance))
  .catch((e) => fwd(JSON.stringify({checks: [{name: "load", ok: false, msg: String(e)}]})));
`

const pageJS = `new Promise((resolve) => {
  const w = new Worker("/worker.js");
  w.onmessage = (e) => resolve(String(e.data));
  w.onerror = (e) => resolve(JSON.stringify({checks: [{name: "worker", ok: false, msg: String(e.message)}]}));
})`

// TestBrowserBackend builds internal/jscheck for GOOS=js, runs it in a Web
// Worker in headless Chromium on SwiftShader's WebGPU adapter, and fails on
// every check the browser backend fails. It fails (not skips) without
// Chromium: CI installs it (make deps).
func TestBrowserBackend(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	chrome := os.Getenv("CHROMIUM")
	if chrome == "" {
		var err error
		if chrome, err = exec.LookPath("chromium"); err != nil {
			t.Fatalf("chromium not found (apt-get install chromium, or set CHROMIUM): %v", err)
		}
	}
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "jscheck.wasm"), "./internal/jscheck")
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building jscheck: %v\n%s", err, out)
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	execJS := filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js")
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cross-Origin-Opener-Policy", "same-origin")
		w.Header().Set("Cross-Origin-Embedder-Policy", "require-corp")
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<!doctype html><title>webgpu jscheck</title>"))
		case "/worker.js":
			w.Header().Set("Content-Type", "text/javascript")
			_, _ = w.Write([]byte(workerJS))
		case "/wasm_exec.js":
			w.Header().Set("Content-Type", "text/javascript")
			http.ServeFile(w, r, execJS)
		case "/jscheck.wasm":
			w.Header().Set("Content-Type", "application/wasm")
			http.ServeFile(w, r, filepath.Join(dir, "jscheck.wasm"))
		default:
			http.NotFound(w, r)
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	// Our own flag list: chromedp's defaults set --enable-features and would
	// drop Vulkan (see shared notes, browser-runtime.md).
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chrome),
		chromedp.UserDataDir(filepath.Join(dir, "profile")),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("enable-unsafe-webgpu", true),
		chromedp.Flag("enable-features", "Vulkan"),
		chromedp.Flag("use-angle", "swiftshader"),
		chromedp.Flag("use-vulkan", "swiftshader"),
		chromedp.Flag("use-webgpu-adapter", "swiftshader"),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	defer acancel()
	bctx, bcancel := chromedp.NewContext(actx)
	defer bcancel()
	var raw string
	if _, err := chromedp.Run(bctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	raw, err = chromedp.Run(bctx, chromedp.Evaluate[string](pageJS, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("running jscheck: %v", err)
	}
	var rep struct {
		StepMicros float64 `json:"stepMicros"`
		Info       Info    `json:"info"`
		Checks     []struct {
			Name string `json:"name"`
			OK   bool   `json:"ok"`
			Msg  string `json:"msg"`
		} `json:"checks"`
	}
	if err := json.Unmarshal([]byte(raw), &rep); err != nil {
		t.Fatalf("report %q: %v", raw, err)
	}
	t.Logf("browser adapter %q fallback=%v features=%v subgroups=%d..%d maxStorageBufferBindingSize=%d", rep.Info.Adapter, rep.Info.Fallback, rep.Info.Features, rep.Info.SubgroupMinSize, rep.Info.SubgroupMaxSize, rep.Info.Limits.MaxStorageBufferBindingSize)
	if rep.Info.Has(FeatureSubgroups) && (rep.Info.SubgroupMinSize == 0 || rep.Info.SubgroupMaxSize < rep.Info.SubgroupMinSize) {
		t.Errorf("subgroups granted but sizes %d..%d", rep.Info.SubgroupMinSize, rep.Info.SubgroupMaxSize)
	}
	t.Logf("browser step (64 dispatches + 4-byte readback, one in flight): %.0f µs", rep.StepMicros)
	if len(rep.Checks) < 10 {
		t.Errorf("only %d checks ran", len(rep.Checks))
	}
	var names []string
	for _, c := range rep.Checks {
		names = append(names, c.Name)
		if !c.OK {
			t.Errorf("browser check %s: %s", c.Name, c.Msg)
		}
	}
	t.Logf("checks: %s", strings.Join(names, " "))
}
