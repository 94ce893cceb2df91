package main

import (
	"context"
	"fmt"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/compute/gpu"
)

// backendFlagHelp documents the --backend flag of eval, run and bench.
const backendFlagHelp = "compute backend: cpu or gpu (WebGPU through wgpu-native)"

// openBackend returns the backend named by --backend: nil for "cpu" (the
// engine builds its own with the thread count), a WebGPU backend on the
// default high-performance adapter for "gpu".
func openBackend(ctx context.Context, name string) (compute.Backend, error) {
	switch name {
	case "cpu", "":
		return nil, nil
	case "gpu", "webgpu":
		return gpu.Open(ctx)
	}
	return nil, fmt.Errorf("--backend %q: want cpu or gpu", name)
}
