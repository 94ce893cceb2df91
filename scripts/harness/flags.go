package harness

import (
	"os"
	"strings"

	"github.com/chromedp/chromedp"
)

// DefaultChromium is Debian's Chromium; CHROMIUM overrides it.
const DefaultChromium = "/usr/bin/chromium"

// swiftShaderFlags give a working WebGPU adapter in headless Chromium on a
// machine without a GPU (measured: see shared notes/browser-runtime.md). The
// list is built here rather than on chromedp.DefaultExecAllocatorOptions,
// whose own --enable-features would drop Vulkan.
var swiftShaderFlags = map[string]any{
	"enable-unsafe-webgpu":      true,
	"enable-features":           "Vulkan",
	"use-angle":                 "swiftshader",
	"use-vulkan":                "swiftshader",
	"use-webgpu-adapter":        "swiftshader",
	"enable-unsafe-swiftshader": true,
}

// gpuFlags ask for the machine's real GPU through Vulkan.
var gpuFlags = map[string]any{
	"enable-unsafe-webgpu":   true,
	"enable-features":        "Vulkan",
	"use-angle":              "vulkan",
	"ignore-gpu-blocklist":   true,
	"disable-vulkan-surface": true,
}

// commonFlags keep the browser quiet, isolated and deterministic.
var commonFlags = map[string]any{
	"headless":                               true,
	"no-sandbox":                             true,
	"no-first-run":                           true,
	"no-default-browser-check":               true,
	"disable-quic":                           true,
	"disable-background-networking":          true,
	"disable-component-update":               true,
	"disable-sync":                           true,
	"disable-extensions":                     true,
	"disable-default-apps":                   true,
	"disable-dev-shm-usage":                  true,
	"disable-background-timer-throttling":    true,
	"disable-renderer-backgrounding":         true,
	"disable-backgrounding-occluded-windows": true,
	"disable-breakpad":                       true,
	"mute-audio":                             true,
	"enable-logging":                         "stderr", // console lines of workers reach us only this way
	"v":                                      "0",
	"window-size":                            "1024,768",
}

// Flags returns the Chromium command-line flags for opts, as a name → value
// map (true for a bare --name).
func Flags(opts Options) map[string]any {
	out := map[string]any{}
	for k, v := range commonFlags {
		out[k] = v
	}
	extra := swiftShaderFlags
	if opts.GPU {
		extra = gpuFlags
	}
	if opts.NoWebGPU {
		extra = map[string]any{"disable-features": "WebGPU"}
	}
	for k, v := range extra {
		out[k] = v
	}
	for k, v := range envFlags(os.Getenv("HARNESS_CHROMIUM_FLAGS")) {
		out[k] = v
	}
	return out
}

// envFlags parses $HARNESS_CHROMIUM_FLAGS ("--name=value --bare ...",
// space-separated), which adds to or overrides the flags above: for
// experiments such as Dawn toggles (--enable-dawn-features=...) without a
// rebuild.
func envFlags(s string) map[string]any {
	out := map[string]any{}
	for _, f := range strings.Fields(s) {
		name, val, ok := strings.Cut(strings.TrimLeft(f, "-"), "=")
		if name == "" {
			continue
		}
		if ok {
			out[name] = val
		} else {
			out[name] = true
		}
	}
	return out
}

func allocatorOptions(opts Options, userDataDir string) []chromedp.ExecAllocatorOption {
	path := opts.Chromium
	if path == "" {
		path = os.Getenv("CHROMIUM")
	}
	if path == "" {
		path = DefaultChromium
	}
	o := []chromedp.ExecAllocatorOption{chromedp.ExecPath(path), chromedp.UserDataDir(userDataDir)}
	for k, v := range Flags(opts) {
		o = append(o, chromedp.Flag(k, v))
	}
	return o
}
