//go:build wasm

package cpu

import "github.com/webgguf/webgguf/gguf"

// Under wasm the wide kernels win (see dotq_wide.go), and q4_K products
// of up to fusedMaxRows token rows use 10-bit activations (dotq_xq.go).
func init() {
	useXQ = true
	for name, fn := range wideDots {
		t, _ := gguf.ParseType(name)
		fusedDots[t] = fn
	}
}
