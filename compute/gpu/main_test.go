package gpu_test

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestMain keeps the garbage collector away until the heap reaches 3 GiB.
// cogentcore/webgpu v0.23.0's Buffer.MapAsync hands C a pointer to a Go
// cgo.Handle that nothing keeps alive; when a collection frees it before
// the map callback runs, the callback panics (invalid handle). Parallel
// tests allocate enough to hit it. The fix belongs in the webgpu runtime
// (map through our own C call); until then the tests avoid collections.
//
// LP_NUM_THREADS=0: with lavapipe's default worker threads (one per core)
// the gotiny decode step crashes the process with SIGSEGV in a driver
// thread about two runs in three; with one worker thread, or none, or
// under gdb it never did. Not yet understood (see the package report); the
// setting only affects lavapipe.
func TestMain(m *testing.M) {
	if os.Getenv("LP_NUM_THREADS") == "" {
		os.Setenv("LP_NUM_THREADS", "0")
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(3 << 30)
	os.Exit(m.Run())
}
