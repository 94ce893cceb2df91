//go:build !(js && wasm)

package testengine

import "github.com/webgguf/webgguf/worker"

func crash(mode string) error {
	return worker.NewError("unsupported", "crash mode "+mode+" needs the browser build", nil)
}
