package gpu

// ForcePlainNorm exposes forcePlainNorm to the external tests.
func ForcePlainNorm(on bool) { forcePlainNorm.Store(on) }
