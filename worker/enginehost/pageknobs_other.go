//go:build !(js && wasm)

package enginehost

// Outside the browser there is no benchmark page: natively `webgguf bench`
// has its own flags (see pageknobs_js.go).

func profileRequested() bool { return false }

func pipelineDepth() int { return 0 }

func readbackBatch() int { return 0 }
