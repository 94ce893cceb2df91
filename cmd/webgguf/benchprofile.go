package main

import (
	"context"
	"fmt"
	"io"

	"github.com/webgguf/webgguf/compute/gpu"
)

// benchProfile is the --profile breakdown of the last step of one test.
type benchProfile struct {
	Test    string       `json:"test"`
	Depth   int          `json:"depth"`
	Profile *gpu.Profile `json:"profile"`
}

// profileStep profiles the backend's last step (runs untimed repeats for
// the host phases, one timestamped run for the GPU part).
func profileStep(ctx context.Context, gb *gpu.Backend, test string, depth int) (benchProfile, error) {
	pr, err := gb.ProfileLast(ctx, 20)
	if err != nil && pr == nil {
		return benchProfile{}, err
	}
	// A device without timestamp queries still gets the host phases.
	return benchProfile{Test: test, Depth: depth, Profile: pr}, nil
}

// printProfile writes the host phases and the GPU time per kernel label
// and grid (gpu.Profile.WriteTable).
func printProfile(w io.Writer, bp benchProfile) {
	bp.Profile.WriteTable(w, fmt.Sprintf("\nprofile of one %s step at depth %d", bp.Test, bp.Depth))
}
