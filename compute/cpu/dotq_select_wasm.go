//go:build wasm

package cpu

import "github.com/webgguf/webgguf/gguf"

// Under wasm the wide kernels win (see dotq_wide.go).
func init() {
	for name, fn := range wideDots {
		t, _ := gguf.ParseType(name)
		fusedDots[t] = fn
	}
}
