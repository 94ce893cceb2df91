//go:build !(js && wasm)

package enginehost

// profileRequested is false outside the browser: natively,
// `webgguf bench --profile` profiles a step (see profile_js.go).
func profileRequested() bool { return false }
