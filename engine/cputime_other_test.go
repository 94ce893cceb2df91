//go:build !linux

package engine_test

import "time"

// processCPU is unavailable here; benchmarks then report no CPU metric.
func processCPU() time.Duration { return 0 }
