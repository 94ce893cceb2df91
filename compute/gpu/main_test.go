package gpu_test

import (
	"os"
	"testing"
)

// TestMain sets LP_NUM_THREADS=0 (unless the caller set it): with
// lavapipe's default worker threads (one per core) the gotiny decode step
// crashed the process with SIGSEGV in a driver thread about two runs in
// three; with one worker thread, or none, or under gdb it never did. See
// the package doc for what is known. The setting only affects lavapipe.
//
// (The GC used to be held off here too: cogentcore's Buffer.MapAsync let a
// collection free its callback handle. webgpu now maps through its own C
// call, proven by webgpu's TestMapSurvivesGC.)
func TestMain(m *testing.M) {
	if os.Getenv("LP_NUM_THREADS") == "" {
		os.Setenv("LP_NUM_THREADS", "0")
	}
	os.Exit(m.Run())
}
