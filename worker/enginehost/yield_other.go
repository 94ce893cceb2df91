//go:build !(js && wasm)

package enginehost

import "time"

// lostGrace is 0 natively: wgpu-native reports a loss when it is polled,
// which every call on the device does (see yield_js.go).
const lostGrace = time.Duration(0)

// yieldToJS does nothing outside the browser: native goroutines are
// preempted, so a cancel is seen without help (see yield_js.go).
func yieldToJS() {}
