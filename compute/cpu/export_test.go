package cpu

// SetUseXQ switches the quantized-activation q4_K decode kernel on or off (the
// wasm build has it on) and returns a function restoring the previous
// setting, so native tests can judge the wasm build's path.
func SetUseXQ(on bool) (restore func()) {
	prev := useXQ
	useXQ = on
	return func() { useXQ = prev }
}
