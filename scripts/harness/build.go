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
	args := []string{"build", "-trimpath", "-o", filepath.Join(outDir, "engine.wasm")}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	cmd := exec.CommandContext(ctx, goTool(), append(args, pkg)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("harness: go build %s for js/wasm: %v\n%s", pkg, err, out)
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
