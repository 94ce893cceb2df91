//go:build linux && !wasm

package cpu

import (
	"syscall"
	"time"
)

// cpuNow is the CPU time this process has used: on the shared machine a
// steadier measure of one kernel's cost than wall time.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
