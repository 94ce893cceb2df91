//go:build !(js && wasm)

package enginehost

// yieldToJS does nothing outside the browser: native goroutines are
// preempted, so a cancel is seen without help (see yield_js.go).
func yieldToJS() {}
