package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"time"

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
// and grid (summed over the step's dispatches of that kernel and grid,
// largest first).
func printProfile(w io.Writer, bp benchProfile) {
	pr := bp.Profile
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	fmt.Fprintf(w, "\nprofile of one %s step at depth %d (%d dispatches)\n", bp.Test, bp.Depth, len(pr.Dispatches))
	fmt.Fprintf(w, "host, mean of %d runs: write step %.1f µs, encode %.1f µs, finish %.1f µs, submit %.1f µs; wall to GPU done %.1f µs\n",
		pr.Runs, us(pr.WriteStep), us(pr.Phases.Encode), us(pr.Phases.Finish), us(pr.Phases.Submit), us(pr.Wall))
	if len(pr.Dispatches) == 0 {
		fmt.Fprintln(w, "no GPU timestamps (device lacks timestamp-query)")
		return
	}
	type agg struct {
		label string
		n     int
		t     time.Duration
	}
	by := map[string]*agg{}
	var order []*agg
	for _, d := range pr.Dispatches {
		// The grid tells shapes of one kernel apart (the O projection from
		// ffn_down, the lm head from the rest).
		key := fmt.Sprintf("%s %dx%dx%d", d.Label, d.Grid[0], d.Grid[1], d.Grid[2])
		a := by[key]
		if a == nil {
			a = &agg{label: key}
			by[key] = a
			order = append(order, a)
		}
		a.n++
		a.t += d.GPU
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].t > order[j].t })
	fmt.Fprintf(w, "GPU (one compute pass per dispatch): total %.1f µs\n", us(pr.GPUTotal))
	fmt.Fprintf(w, "| %-28s | %5s | %10s | %9s | %6s |\n", "kernel grid", "count", "total µs", "mean µs", "share")
	for _, a := range order {
		fmt.Fprintf(w, "| %-28s | %5d | %10.1f | %9.2f | %5.1f%% |\n", a.label, a.n, us(a.t), us(a.t)/float64(a.n), 100*float64(a.t)/float64(pr.GPUTotal))
	}
}
