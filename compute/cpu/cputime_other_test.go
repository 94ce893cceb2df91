//go:build !linux && !(js && wasm)

package cpu

import "time"

// cpuNow falls back to wall time where no CPU clock is at hand.
func cpuNow() time.Duration { return time.Duration(time.Now().UnixNano()) }
