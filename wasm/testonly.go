//go:build js && wasm && webgguf_test

package main

import (
	"github.com/webgguf/webgguf/opfs"
	"github.com/webgguf/webgguf/worker"
	"github.com/webgguf/webgguf/worker/testengine"
)

// The test engine (make wasm-test: build/engine-test.wasm, the harness's
// test pages) adds the test messages' handlers to the release engine:
// echo, stream and crash, and the OPFS loader and first-token diagnostics.
func init() {
	worker.RegisterDiagnostics(worker.DefaultMux)
	testengine.Register(worker.DefaultMux)
	opfs.RegisterDiagnostics(worker.DefaultMux)
}
