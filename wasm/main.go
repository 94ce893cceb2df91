//go:build js && wasm

// Command wasm is the engine's GOOS=js entry point; it runs inside a Web
// Worker started by worker/worker.js. It stays thin: engine features register
// their handlers on worker.DefaultMux from init functions, and main serves.
package main

import (
	"os"

	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/worker"
	"github.com/webgguf/webgguf/worker/enginehost"
)

func main() {
	host := enginehost.New()
	host.SetBackend("webgpu", gpu.OpenBackend)
	enginehost.Register(worker.DefaultMux, host)
	if err := worker.Run("webgguf"); err != nil {
		println("webgguf:", err.Error())
		os.Exit(1)
	}
}
