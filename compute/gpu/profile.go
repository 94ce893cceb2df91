package gpu

import (
	"context"
	"errors"
	"time"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/webgpu"
)

// DispatchTime is one kernel launch of a profiled step.
type DispatchTime struct {
	// Label is the kernel's op name (matvec, matvec_qkv, attn_decode, ...).
	Label string `json:"label"`
	// Grid is the workgroup grid.
	Grid [3]uint32 `json:"grid"`
	// GPU is its GPU time from timestamps around its own compute pass
	// (so it includes one pass boundary).
	GPU time.Duration `json:"gpu_ns"`
}

// Profile is where the time of one program step goes: per-dispatch GPU
// time, and the host time to prepare and submit it, by phase.
type Profile struct {
	Dispatches []DispatchTime `json:"dispatches"`
	// GPUTotal is the sum of the dispatch times.
	GPUTotal time.Duration `json:"gpu_total_ns"`
	// Runs is the number of untimed runs the host phases are averaged over.
	Runs int `json:"runs"`
	// WriteStep is the mean time to fill and write the step buffer.
	WriteStep time.Duration `json:"write_step_ns"`
	// Phases are the mean phases of Tape.Run (encode, finish, submit).
	Phases webgpu.RunPhases `json:"phases"`
	// Wall is the mean time from writing the step to the GPU finishing it.
	Wall time.Duration `json:"wall_ns"`
}

// lastStep remembers the last submitted step so a benchmark can profile
// it, only while on (RecordSteps): holding the program and the step's
// slices from every step made the fixture tests on lavapipe crash (SIGSEGV
// in the driver, reproducibly on gotiny), so the default keeps nothing.
type lastStep struct {
	on bool
	p  *program
	s  compute.Step
	k  tapeKey // the tape variant the step ran (rows, attention, lm head rows)
}

// RecordSteps makes the backend remember the last submitted step (and
// with false forgets it), for ProfileLast. Off by default.
func (b *Backend) RecordSteps(on bool) {
	b.mu.Lock()
	b.last = lastStep{on: on}
	b.mu.Unlock()
}

// noteLast records step s of p, run on tape variant k, when RecordSteps
// is on.
func (b *Backend) noteLast(p *program, s *compute.Step, k tapeKey) {
	b.mu.Lock()
	if b.last.on {
		b.last.p, b.last.s, b.last.k = p, *s, k
		b.last.s.Tokens = append([]int32(nil), s.Tokens...)
		b.last.s.OutRows = append([]int32(nil), s.OutRows...)
	}
	b.mu.Unlock()
}

// ErrNoStep is returned by ProfileLast before any step ran with
// RecordSteps on.
var ErrNoStep = errors.New("gpu: no step has run yet")

// ProfileLast re-runs the last step submitted with RecordSteps on (without
// reading logits) runs times untimed, averaging its host phases, then once
// more on a separate tape with a GPU timestamp around every dispatch. The re-runs write the
// step's KV cache rows again: the same rows, except after a fed greedy step (SubmitArgmax with
// feed), whose input token was on the GPU and is not recorded, so the re-runs write that
// position's row from the placeholder token; a caller that keeps the cache must not reuse that
// position afterwards (the browser host drops its prefix cache after a profile). It needs the
// timestamp-query feature for the GPU part and is for benchmarks only: the
// timed tape creates a query set and two buffers, released before return.
func (b *Backend) ProfileLast(ctx context.Context, runs int) (*Profile, error) {
	b.mu.Lock()
	ls := b.last
	b.mu.Unlock()
	if ls.p == nil {
		return nil, ErrNoStep
	}
	p, s := ls.p, ls.s
	if runs < 1 {
		runs = 1
	}
	// The step's own tape variant (its row cap, attention and lm-head
	// rows), without the logits readback and the sampler: nothing is read.
	k := ls.k
	k.chunks, k.sampler = 0, ""
	t, err := p.tape(k)
	if err != nil {
		return nil, err
	}
	pr := &Profile{Runs: runs}
	var ph webgpu.RunPhases
	for range runs {
		t0 := time.Now()
		if err := p.writeStep(&s); err != nil {
			return nil, err
		}
		pr.WriteStep += time.Since(t0)
		if err := t.Run(ctx); err != nil {
			return nil, err
		}
		lr := t.LastRun()
		ph.Encode += lr.Encode
		ph.Finish += lr.Finish
		ph.Submit += lr.Submit
		if err := b.Wait(ctx); err != nil {
			return nil, err
		}
		pr.Wall += time.Since(t0)
	}
	n := time.Duration(runs)
	pr.WriteStep /= n
	pr.Wall /= n
	pr.Phases = webgpu.RunPhases{Encode: ph.Encode / n, Finish: ph.Finish / n, Submit: ph.Submit / n}

	tt := p.d.NewTape()
	var grids [][3]uint32
	for _, o := range p.opsFor(k) {
		p.replay(tt, o)
		if o.pipe != nil {
			grids = append(grids, o.grid)
		}
	}
	if err := tt.Err(); err != nil {
		return nil, err
	}
	if err := tt.EnableTiming(); err != nil {
		return pr, err
	}
	defer tt.DisableTiming()
	if err := p.writeStep(&s); err != nil {
		return nil, err
	}
	if err := tt.Run(ctx); err != nil {
		return nil, err
	}
	labels := tt.DispatchLabels()
	for i, d := range tt.Timings() {
		pr.Dispatches = append(pr.Dispatches, DispatchTime{Label: labels[i], Grid: grids[i], GPU: d})
		pr.GPUTotal += d
	}
	return pr, nil
}
