// Command runpage runs one harness page in headless Chromium and prints what
// its globalThis.harnessDone promise resolved to, then the console output:
//
//	go run ./scripts/harness/runpage scripts/harness/pages/bench.html
//
// It builds ./wasm (with -tags) into a temp folder served at /build/ and
// /jsbindings/dist/, serves
// the repository root on 127.0.0.1, and exits 1 if the page fails (leaving a
// screenshot, whose path it prints).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/webgguf/webgguf/scripts/harness"
)

func main() {
	tags := flag.String("tags", "", "comma-separated extra build tags for ./wasm (both engines)")
	timeout := flag.Duration("timeout", 5*time.Minute, "how long the page may run")
	gpu := flag.Bool("gpu", false, "use the machine's GPU instead of SwiftShader")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: runpage [-tags T] [-timeout 5m] [-gpu] PAGE (a path under the repository root)")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *tags, *timeout, *gpu); err != nil {
		fmt.Fprintln(os.Stderr, "runpage:", err)
		os.Exit(1)
	}
}

func run(page, tags string, timeout time.Duration, gpu bool) error {
	ctx := context.Background()
	root, err := harness.RepoRoot(".")
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "webgguf-runpage-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var tagList []string
	if tags != "" {
		tagList = strings.Split(tags, ",")
	}
	if _, err := harness.BuildWasm(ctx, root, "./wasm", dir, tagList...); err != nil {
		return err
	}
	if err := harness.BuildTestWasm(ctx, root, dir, tagList...); err != nil {
		return err
	}
	srv, err := harness.Serve(root, map[string]string{"/build/": dir, "/jsbindings/dist/": dir})
	if err != nil {
		return err
	}
	defer srv.Close()
	b, err := harness.Launch(ctx, harness.Options{GPU: gpu})
	if err != nil {
		return err
	}
	defer b.Close()
	res, err := b.RunPage(ctx, srv.URL+"/"+strings.TrimPrefix(page, "/"), timeout)
	if len(res.Value) > 0 {
		var v any
		if json.Unmarshal(res.Value, &v) == nil {
			out, _ := json.MarshalIndent(v, "", "  ")
			fmt.Println(string(out))
		}
	}
	for _, l := range res.Console {
		fmt.Fprintln(os.Stderr, l)
	}
	if err != nil && res.Screenshot != "" {
		return fmt.Errorf("%w (screenshot %s)", err, res.Screenshot)
	}
	return err
}
