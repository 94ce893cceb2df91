//go:build !js

package enginehost

// wasmBytes is the engine's wasm linear memory; natively there is none to
// report (ModelInfo.WasmBytes is 0).
func wasmBytes() int64 { return 0 }
