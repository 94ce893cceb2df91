// Command gpuprobe asks headless Chromium for a WebGPU adapter under several
// sets of flags and prints, for each, what requestAdapter() returned and
// chrome://gpu's report. It exists to find out, on a machine with a real GPU
// (the lent device), which flags give Chromium's WebGPU that GPU:
//
//	gpuprobe -chromium /opt/chromium/run.sh [-sets vulkan,egl] [-v]
//
// The probe page is served by the command itself on 127.0.0.1 (WebGPU needs a
// secure context). Each set runs in a fresh profile; a set's failure does not
// stop the others. It exits 0 when some set gave a hardware adapter.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/chromedp"
)

// flagSet is one way of launching Chromium.
type flagSet struct {
	name  string
	flags map[string]any
}

// base flags every set shares: headless, isolated, logging to stderr.
var base = map[string]any{
	"headless":              "new",
	"no-sandbox":            true,
	"no-first-run":          true,
	"disable-quic":          true,
	"disable-sync":          true,
	"disable-extensions":    true,
	"disable-dev-shm-usage": true,
	"enable-unsafe-webgpu":  true,
	"ignore-gpu-blocklist":  true,
	"enable-logging":        "stderr",
	"v":                     "1",
}

// sets are the candidate flag combinations, in the order tried.
var sets = []flagSet{
	// The published recipe for headless Chrome on NVIDIA (Colab): ANGLE and
	// Dawn on Vulkan, no surface extensions.
	{"vulkan", map[string]any{"use-angle": "vulkan", "enable-features": "Vulkan", "disable-vulkan-surface": true}},
	// The same with Chromium's own Vulkan left off: only Dawn loads Vulkan.
	{"vulkan-dawn-only", map[string]any{"use-angle": "vulkan", "disable-vulkan-surface": true}},
	// ANGLE on the driver's EGL (glvnd → NVIDIA), Dawn on Vulkan.
	{"egl", map[string]any{"use-gl": "angle", "use-angle": "gl-egl", "enable-features": "Vulkan", "disable-vulkan-surface": true}},
	// Chromium's Vulkan named as the native one, ANGLE's Vulkan path as default.
	{"vulkan-native", map[string]any{"use-angle": "vulkan", "use-vulkan": "native", "enable-features": "Vulkan,VulkanFromANGLE,DefaultANGLEVulkan", "disable-vulkan-surface": true}},
	// GPU work in the browser process (no separate GPU process sandboxing).
	{"vulkan-inprocess", map[string]any{"use-angle": "vulkan", "enable-features": "Vulkan", "disable-vulkan-surface": true, "in-process-gpu": true}},
	// Skip Chromium's GPU feature checks entirely.
	{"vulkan-nogpucheck", map[string]any{"use-angle": "vulkan", "enable-features": "Vulkan,SkiaGraphite", "disable-vulkan-surface": true, "disable-gpu-driver-bug-workarounds": true, "disable-software-rasterizer": true, "use-webgpu-adapter": "default"}},
	// Control: SwiftShader, which works on the CPU machines.
	{"swiftshader", map[string]any{"use-angle": "swiftshader", "use-vulkan": "swiftshader", "use-webgpu-adapter": "swiftshader", "enable-features": "Vulkan", "enable-unsafe-swiftshader": true}},
}

const page = `<!doctype html><meta charset="utf-8"><title>probe</title><script>
globalThis.probe = async () => {
  const r = {hasGPU: !!navigator.gpu};
  if (!navigator.gpu) return r;
  for (const pp of ['high-performance', undefined]) {
    try {
      const a = await navigator.gpu.requestAdapter(pp ? {powerPreference: pp} : undefined);
      if (!a) { r[pp || 'default'] = null; continue; }
      const i = a.info || {};
      r[pp || 'default'] = {vendor: i.vendor, architecture: i.architecture, device: i.device,
        description: i.description, fallback: i.isFallbackAdapter ?? a.isFallbackAdapter,
        features: [...a.features].sort(),
        maxBufferSize: a.limits.maxBufferSize, maxStorageBufferBindingSize: a.limits.maxStorageBufferBindingSize,
        maxComputeWorkgroupStorageSize: a.limits.maxComputeWorkgroupStorageSize};
    } catch (e) { r[pp || 'default'] = 'error: ' + e; }
  }
  return r;
};
</script>`

// gpuReport pulls chrome://gpu's text, which lives in shadow roots.
const gpuReport = `(() => {
  const txt = (n) => { let s = ''; if (n.shadowRoot) s += txt(n.shadowRoot); for (const c of n.childNodes || []) { s += c.nodeType === 3 ? c.textContent : txt(c); if (c.nodeType === 1 && /^(DIV|TR|LI|H[1-6]|P)$/.test(c.tagName)) s += '\n'; } return s; };
  return txt(document.body);
})()`

func main() {
	chromium := flag.String("chromium", "/usr/bin/chromium", "Chromium binary or wrapper")
	only := flag.String("sets", "", "comma-separated flag sets to try (default all: "+names()+")")
	verbose := flag.Bool("v", false, "print the whole chrome://gpu report and every GPU-related log line")
	timeout := flag.Duration("timeout", 60*time.Second, "per set")
	flag.Parse()
	srv, url, err := serve()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gpuprobe:", err)
		os.Exit(1)
	}
	defer srv.Close()
	found := false
	for _, s := range sets {
		if *only != "" && !strings.Contains(","+*only+",", ","+s.name+",") {
			continue
		}
		res, report, logs, err := probe(*chromium, s, url, *timeout)
		fmt.Printf("=== set %s: flags %s\n", s.name, flagLine(s))
		if err != nil {
			fmt.Printf("error: %v\n", err)
		}
		fmt.Printf("requestAdapter: %s\n", res)
		if strings.Contains(res, `"fallback":false`) {
			found = true
		}
		fmt.Println("chrome://gpu (selected lines):")
		for _, l := range strings.Split(report, "\n") {
			if l = strings.TrimSpace(l); l != "" && (*verbose || interesting.MatchString(l)) {
				fmt.Println("  " + trim(l, 300))
			}
		}
		fmt.Println("log (GPU-related lines):")
		n := 0
		for _, l := range logs {
			if logLine.MatchString(l) && (*verbose || n < 40) {
				fmt.Println("  " + trim(l, 300))
				n++
			}
		}
	}
	if !found {
		os.Exit(1)
	}
}

var (
	interesting = regexp.MustCompile(`(?i)webgpu|vulkan|dawn|adapter|gl_renderer|gl_vendor|angle|driver|disabled|problem|blocklist|error|fail|hardware|software|gpu0|gpu1|display type|nvidia`)
	logLine     = regexp.MustCompile(`(?i)vulkan|dawn|webgpu|gpu_|gpu process|angle|egl|adapter|vk_|icd`)
)

func names() string {
	var n []string
	for _, s := range sets {
		n = append(n, s.name)
	}
	return strings.Join(n, ",")
}

func flagLine(s flagSet) string {
	var out []string
	for k, v := range s.flags {
		if v == true {
			out = append(out, "--"+k)
		} else {
			out = append(out, fmt.Sprintf("--%s=%v", k, v))
		}
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

func trim(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func serve() (*http.Server, string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(page))
	})}
	go func() { _ = srv.Serve(l) }()
	return srv, "http://" + l.Addr().String() + "/", nil
}

// lines collects the browser's combined output.
type lines struct {
	mu  sync.Mutex
	buf []byte
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	return len(p), nil
}

func (l *lines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Split(string(l.buf), "\n")
}

func probe(chromium string, s flagSet, url string, timeout time.Duration) (res, report string, logs []string, err error) {
	dir, err := os.MkdirTemp("", "gpuprobe-")
	if err != nil {
		return "", "", nil, err
	}
	defer os.RemoveAll(dir)
	out := &lines{}
	opts := []chromedp.ExecAllocatorOption{chromedp.ExecPath(chromium), chromedp.UserDataDir(dir), chromedp.CombinedOutput(out)}
	for k, v := range base {
		opts = append(opts, chromedp.Flag(k, v))
	}
	for k, v := range s.flags {
		opts = append(opts, chromedp.Flag(k, v))
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	defer acancel()
	bctx, bcancel := chromedp.NewContext(actx)
	defer bcancel()
	if err = chromedp.Do(bctx, chromedp.Navigate(url)); err == nil {
		var v json.RawMessage
		if v, err = chromedp.Run(bctx, chromedp.Evaluate[json.RawMessage](`probe()`, chromedp.EvalAwaitPromise)); err == nil {
			res = string(v)
		}
	}
	if err2 := chromedp.Do(bctx, chromedp.Navigate("chrome://gpu"), chromedp.Sleep(3*time.Second)); err2 != nil {
		err = errors.Join(err, fmt.Errorf("chrome://gpu: %w", err2))
	} else if report, err2 = chromedp.Run(bctx, chromedp.Evaluate[string](gpuReport)); err2 != nil {
		err = errors.Join(err, fmt.Errorf("chrome://gpu report: %w", err2))
	}
	return res, report, out.all(), err
}
