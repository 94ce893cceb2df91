//go:build js && wasm

package cpu

// In the browser (GOOS=js), q4_K products of up to fusedMaxRows token rows
// use 10-bit activations (dotq_xq.go), ~1.5× the wide f32 kernel. The
// wasip1 build (engine/wasi, run under wazero) keeps f32 activations, so
// that its logits stay comparable with the native engine's to 1e-4.
func init() { useXQ = true }
