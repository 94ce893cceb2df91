package gpu

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// WriteTable writes p under title as `webgguf bench --profile` prints it:
// the host phases, then the GPU time per kernel label and grid (summed
// over the step's dispatches of that kernel and grid, largest first).
func (p *Profile) WriteTable(w io.Writer, title string) {
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	fmt.Fprintf(w, "%s (%d dispatches)\n", title, len(p.Dispatches))
	fmt.Fprintf(w, "host, mean of %d runs: write step %.1f µs, encode %.1f µs, finish %.1f µs, submit %.1f µs; wall to GPU done %.1f µs\n",
		p.Runs, us(p.WriteStep), us(p.Phases.Encode), us(p.Phases.Finish), us(p.Phases.Submit), us(p.Wall))
	if len(p.Dispatches) == 0 {
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
	for _, d := range p.Dispatches {
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
	fmt.Fprintf(w, "GPU (one compute pass per dispatch): total %.1f µs\n", us(p.GPUTotal))
	fmt.Fprintf(w, "| %-28s | %5s | %10s | %9s | %6s |\n", "kernel grid", "count", "total µs", "mean µs", "share")
	for _, a := range order {
		fmt.Fprintf(w, "| %-28s | %5d | %10.1f | %9.2f | %5.1f%% |\n", a.label, a.n, us(a.t), us(a.t)/float64(a.n), 100*float64(a.t)/float64(p.GPUTotal))
	}
}

// ProfileReport profiles the last recorded step (ProfileLast with runs
// untimed runs) and returns its WriteTable text under title: for hosts
// that can only pass text on, such as the browser worker's debug log.
func (b *Backend) ProfileReport(ctx context.Context, runs int, title string) (string, error) {
	pr, err := b.ProfileLast(ctx, runs)
	if pr == nil {
		return "", err
	}
	var sb strings.Builder
	pr.WriteTable(&sb, title)
	return sb.String(), err
}
