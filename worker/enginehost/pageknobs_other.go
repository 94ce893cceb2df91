//go:build !(js && wasm) || !webgguf_test

package enginehost

// Outside the browser there is no benchmark page (natively `webgguf bench`
// has its own flags), and the release engine.wasm has no page knobs: see
// pageknobs_js.go.

func profileRequested() bool { return false }

func pipelineDepth() int { return 0 }

func readbackBatch() int { return 0 }
