//go:build js && wasm && webgguf_test

package enginehost

import "syscall/js"

// Benchmark knobs: globals of the worker's scope that the benchmark page's
// probe sets (scripts/bench/probe.js) before the engine starts, read at
// each model load. Pages that do not set them get the defaults. Only the
// test engine (webgguf_test) reads them; the release engine has none.

// profileRequested reports whether webggufProfile is truthy (the page's
// profile=1): then every generation ends with a per-kernel GPU profile of
// its last step in the debug log.
func profileRequested() bool {
	return js.Global().Get("webggufProfile").Truthy()
}

// pipelineDepth is webggufPipelineDepth (the page's depth=N), the greedy
// steps to keep in flight (gpu.Backend.SetPipelineDepth), or 0: the
// backend's default.
func pipelineDepth() int {
	v := js.Global().Get("webggufPipelineDepth")
	if v.Type() != js.TypeNumber {
		return 0
	}
	return v.Int()
}

// readbackBatch is webggufReadbackBatch (the page's batch=N), the greedy
// steps whose tokens share one readback map
// (gpu.Backend.SetReadbackBatch), or 0: the backend's default.
func readbackBatch() int {
	v := js.Global().Get("webggufReadbackBatch")
	if v.Type() != js.TypeNumber {
		return 0
	}
	return v.Int()
}
