package harness

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// BuildWasm builds the GOOS=js package pkg (e.g. "./wasm") of the module at
// root into outDir/engine.wasm, with the given build tags, and copies Go's
// wasm_exec.js, the bootstrap worker/worker.js and webgpu/runtime.js (as
// webgpu-runtime.js, which the worker imports) beside it: the layout of the
// npm package's dist/ folder. It returns outDir.
//
// With $HARNESS_PREBUILT set to a folder of that layout (made here by
// BuildWasm or `make build`), it copies the folder's four files instead of
// building: for machines without a Go toolchain, such as the lent GPU
// machine, where the browser benchmarks run from a test binary.
func BuildWasm(ctx context.Context, root, pkg, outDir string, tags ...string) (string, error) {
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return "", err
	}
	if pre := os.Getenv("HARNESS_PREBUILT"); pre != "" {
		for _, f := range []string{"engine.wasm", "wasm_exec.js", "worker.js", "webgpu-runtime.js"} {
			if err := copyFile(filepath.Join(pre, f), filepath.Join(outDir, f)); err != nil {
				return "", fmt.Errorf("harness: HARNESS_PREBUILT: %w", err)
			}
		}
		return outDir, nil
	}
	if err := goBuildWasm(ctx, root, pkg, filepath.Join(outDir, "engine.wasm"), tags); err != nil {
		return "", err
	}
	goroot, err := exec.CommandContext(ctx, goTool(), "env", "GOROOT").Output()
	if err != nil {
		return "", fmt.Errorf("harness: go env GOROOT: %w", err)
	}
	src := filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js")
	if err := copyFile(src, filepath.Join(outDir, "wasm_exec.js")); err != nil {
		return "", err
	}
	if err := copyFile(filepath.Join(root, "worker", "worker.js"), filepath.Join(outDir, "worker.js")); err != nil {
		return "", err
	}
	if err := copyFile(filepath.Join(root, "webgpu", "runtime.js"), filepath.Join(outDir, "webgpu-runtime.js")); err != nil {
		return "", err
	}
	return outDir, nil
}

// TestTag is the build tag of the test engine: ./wasm built with it serves
// the test messages (glue/testmessages.go) beside the release ones.
const TestTag = "webgguf_test"

// BuildTestWasm builds the test engine (./wasm with TestTag and tags) into
// outDir/engine-test.wasm, beside the files BuildWasm put there: the test
// pages (pages/common.js) load it. With $HARNESS_PREBUILT set it copies
// that folder's engine-test.wasm (make wasm-test writes one).
func BuildTestWasm(ctx context.Context, root, outDir string, tags ...string) error {
	out := filepath.Join(outDir, "engine-test.wasm")
	if pre := os.Getenv("HARNESS_PREBUILT"); pre != "" {
		if err := copyFile(filepath.Join(pre, "engine-test.wasm"), out); err != nil {
			return fmt.Errorf("harness: HARNESS_PREBUILT: %w", err)
		}
		return nil
	}
	return goBuildWasm(ctx, root, "./wasm", out, append([]string{TestTag}, tags...))
}

func goBuildWasm(ctx context.Context, root, pkg, out string, tags []string) error {
	args := []string{"build", "-trimpath", "-o", out}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	cmd := exec.CommandContext(ctx, goTool(), append(args, pkg)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("harness: go build %s for js/wasm (tags %v): %v\n%s", pkg, tags, err, out)
	}
	return nil
}

func goTool() string {
	if p := filepath.Join(os.Getenv("GOROOT"), "bin", "go"); os.Getenv("GOROOT") != "" {
		return p
	}
	return "go"
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// RepoRoot finds the module root (the folder with go.mod) at or above dir.
func RepoRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("harness: no go.mod above %s", dir)
		}
		dir = parent
	}
}
