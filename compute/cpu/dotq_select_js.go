//go:build js && wasm

package cpu

// In the browser (GOOS=js), q4_K products use 10-bit activations
// (dotq_xq.go, dotq_xq2.go, dotq_xq4.go) and q6_K decode products 16-bit
// ones (dotq_x16.go), 1.9–3× the wide f32 kernels. The wasip1 build (engine/wasi, run under wazero) keeps f32 activations, so
// that its logits stay comparable with the native engine's to 1e-4.
func init() { useXQ = true }
