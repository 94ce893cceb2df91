package gpu_test

import (
	"os"
	"testing"
)

// TestMain sets LP_NUM_THREADS=0 (unless the caller set it): lavapipe
// then runs each step on its submit thread alone. It was set against
// crashes in lavapipe's threads that the package doc now explains (wgpu's
// 5 s blocking poll, no longer used); the setting only affects lavapipe.
func TestMain(m *testing.M) {
	if os.Getenv("LP_NUM_THREADS") == "" {
		os.Setenv("LP_NUM_THREADS", "0")
	}
	os.Exit(m.Run())
}
