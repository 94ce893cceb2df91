package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Options configure Launch.
type Options struct {
	// Chromium is the browser binary; default $CHROMIUM or /usr/bin/chromium.
	Chromium string
	// GPU asks for the real GPU instead of SwiftShader; $HARNESS_GPU
	// (non-empty) sets it for every launch, so that benchmarks written for
	// SwiftShader (bench-opfs) run on a machine's GPU unchanged.
	GPU bool
	// NoWebGPU launches Chromium without WebGPU (no WebGPU flags and the
	// WebGPU feature disabled), as a browser that lacks it: the CPU
	// fallback's tests and benchmarks.
	NoWebGPU bool
	// ArtifactDir receives screenshots of failed pages; default a temp folder.
	ArtifactDir string
}

// Browser is one running headless Chromium.
type Browser struct {
	opts        Options
	allocCtx    context.Context
	cancelAlloc context.CancelFunc
	browserCtx  context.Context
	cancel      context.CancelFunc
	dataDir     string
	stderr      *lineBuffer
}

// Launch starts Chromium with a fresh profile and the WebGPU flags of opts.
func Launch(ctx context.Context, opts Options) (*Browser, error) {
	opts = withEnv(opts)
	dataDir, err := os.MkdirTemp("", "webgguf-chromium-")
	if err != nil {
		return nil, err
	}
	if opts.ArtifactDir == "" {
		opts.ArtifactDir = filepath.Join(os.TempDir(), "webgguf-harness")
	}
	b := &Browser{opts: opts, dataDir: dataDir, stderr: &lineBuffer{}}
	ao := append(allocatorOptions(opts, dataDir), chromedp.CombinedOutput(b.stderr))
	b.allocCtx, b.cancelAlloc = chromedp.NewExecAllocator(ctx, ao...)
	b.browserCtx, b.cancel = chromedp.NewContext(b.allocCtx)
	if err := chromedp.Do(b.browserCtx); err != nil { // starts the browser
		b.Close()
		return nil, fmt.Errorf("harness: launch chromium: %w\n%s", err, b.stderr.String())
	}
	return b, nil
}

// withEnv applies $HARNESS_GPU to opts (see Options.GPU).
func withEnv(opts Options) Options {
	if os.Getenv("HARNESS_GPU") != "" && !opts.NoWebGPU {
		opts.GPU = true
	}
	return opts
}

// Close stops the browser and removes its profile.
func (b *Browser) Close() {
	b.cancel()
	b.cancelAlloc()
	_ = os.RemoveAll(b.dataDir)
}

// PageResult is what RunPage collected.
type PageResult struct {
	// Value is the JSON of what globalThis.harnessDone resolved to.
	Value json.RawMessage
	// Console holds the page's console calls and uncaught exceptions, then
	// the browser's CONSOLE log lines (which include workers').
	Console []string
	// Screenshot is the path of a PNG taken when the page failed, or "".
	Screenshot string
}

// waitDone waits for the page to define harnessDone, then awaits it.
const waitDone = `new Promise((resolve, reject) => {
  const poll = () => globalThis.harnessDone ? Promise.resolve(globalThis.harnessDone).then(resolve, reject) : setTimeout(poll, 10);
  poll();
})`

// RunPage loads url in a new tab and waits up to timeout for
// globalThis.harnessDone to settle. A rejection, an exception or a timeout
// is an error; the result still carries the console output and a screenshot.
func (b *Browser) RunPage(ctx context.Context, url string, timeout time.Duration) (*PageResult, error) {
	res := &PageResult{}
	var mu sync.Mutex
	tab, cancel := chromedp.NewContext(b.browserCtx, chromedp.WithListener(func(ev any) {
		var line string
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			parts := make([]string, 0, len(e.Args))
			for _, a := range e.Args {
				if a.Value != nil {
					parts = append(parts, string(a.Value))
				} else {
					parts = append(parts, a.Description)
				}
			}
			line = fmt.Sprintf("console.%s: %s", e.Type, strings.Join(parts, " "))
		case *runtime.EventExceptionThrown:
			d := e.ExceptionDetails
			line = fmt.Sprintf("exception: %s (%s:%d:%d)", d.Text, d.URL, d.LineNumber+1, d.ColumnNumber+1)
			if d.Exception != nil {
				line += " " + d.Exception.Description
			}
		default:
			return
		}
		mu.Lock()
		res.Console = append(res.Console, line)
		mu.Unlock()
	}))
	defer cancel()
	mark := b.stderr.Len()
	tctx, tcancel := context.WithTimeout(tab, timeout)
	defer tcancel()
	err := chromedp.Do(tctx, chromedp.Navigate(url))
	if err == nil {
		res.Value, err = chromedp.Run(tctx, chromedp.Evaluate[json.RawMessage](waitDone, chromedp.EvalAwaitPromise))
	}
	mu.Lock()
	defer mu.Unlock()
	for _, l := range b.stderr.LinesFrom(mark) {
		if strings.Contains(l, "CONSOLE") {
			res.Console = append(res.Console, l)
		}
	}
	if err != nil {
		if tctx.Err() != nil {
			err = fmt.Errorf("harness: page %s did not finish in %v: %w", url, timeout, err)
		} else {
			err = fmt.Errorf("harness: page %s: %w", url, err)
		}
		res.Screenshot = b.screenshot(tab, url)
	}
	return res, err
}

// Screenshot saves a PNG of the tab to the artifact folder; it returns the
// path or "" when that failed (the page may be gone).
func (b *Browser) screenshot(tab context.Context, url string) string {
	sctx, cancel := context.WithTimeout(tab, 10*time.Second)
	defer cancel()
	png, err := chromedp.Run(sctx, chromedp.CaptureScreenshot())
	if err != nil || len(png) == 0 {
		return ""
	}
	if err := os.MkdirAll(b.opts.ArtifactDir, 0o755); err != nil {
		return ""
	}
	name := strings.NewReplacer("/", "_", ":", "_", "?", "_", "&", "_").Replace(url)
	path := filepath.Join(b.opts.ArtifactDir, fmt.Sprintf("%s-%d.png", name, time.Now().UnixNano()))
	if os.WriteFile(path, png, 0o644) != nil {
		return ""
	}
	return path
}

// lineBuffer collects the browser's output lines, safe for concurrent use.
type lineBuffer struct {
	mu    sync.Mutex
	part  bytes.Buffer
	lines []string
}

func (l *lineBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.part.Write(p)
	for {
		i := bytes.IndexByte(l.part.Bytes(), '\n')
		if i < 0 {
			break
		}
		l.lines = append(l.lines, string(l.part.Next(i + 1)[:i]))
	}
	return len(p), nil
}

// Len returns the number of complete lines so far.
func (l *lineBuffer) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.lines)
}

// LinesFrom returns the lines from index i on.
func (l *lineBuffer) LinesFrom(i int) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines[min(i, len(l.lines)):]...)
}

func (l *lineBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n") + l.part.String()
}
