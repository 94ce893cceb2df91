//go:build js && wasm

package enginehost

import "syscall/js"

// profileRequested reports whether the worker's global scope has a truthy
// webggufProfile, which the benchmark page's probe sets (scripts/bench/
// probe.js, profile=1) before the engine starts: then every generation
// ends with a per-kernel GPU profile of its last step in the debug log.
func profileRequested() bool {
	return js.Global().Get("webggufProfile").Truthy()
}
