//go:build js

package enginehost

import "github.com/webgguf/webgguf/opfs"

// wasmBytes is the engine's wasm linear memory (Go's memory obtained from
// the system; linear memory never shrinks), for ModelInfo.WasmBytes and
// WasmGrowth: the e2e tests assert a GPU load of a cached model grows it
// by far less than the file's size.
func wasmBytes() int64 { return opfs.WasmBytes() }
