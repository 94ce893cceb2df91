//go:build js

package opfs

import (
	"runtime"
	"syscall/js"
)

// WasmBytes is the Go runtime's memory obtained from the system: in wasm,
// the linear memory it has grown (memory never shrinks there).
func WasmBytes() int64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.Sys)
}

// JSHeapUsed is performance.memory.usedJSHeapSize where Chromium offers
// it, else 0.
func JSHeapUsed() int64 {
	pm := js.Global().Get("performance").Get("memory")
	if pm.IsUndefined() || pm.IsNull() {
		return 0
	}
	return int64(pm.Get("usedJSHeapSize").Float())
}
