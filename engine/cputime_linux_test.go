package engine_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process has used: with the machine
// shared, tokens per CPU-second at -cpu 1 is a steadier single-core speed
// than tokens per wall second.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
