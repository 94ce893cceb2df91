//go:build js && wasm && e2e

package main

import (
	"github.com/webgguf/webgguf/worker"
	"github.com/webgguf/webgguf/worker/testengine"
)

// The e2e test build (go build -tags e2e ./wasm) adds stream and crash handlers.
func init() { testengine.Register(worker.DefaultMux) }
