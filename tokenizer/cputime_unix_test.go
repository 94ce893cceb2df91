//go:build unix

package tokenizer

import "syscall"

// cpuSeconds is the process's user+system CPU time, so benchmarks can
// report throughput per CPU-second, which stays meaningful on a machine
// shared with other jobs (wall time does not).
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
