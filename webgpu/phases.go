package webgpu

import "time"

// RunPhases splits the host time of one Tape.Run, so that a benchmark can
// tell the cost of recording commands from wgpu's finish and submit
// (validation and resource tracking per command buffer). In the browser
// one JS call (runtime.js) records, finishes and submits, so Encode is
// that whole call and Finish is zero; a tape encoded ahead (Encode, then
// Submit) has its submit call in Submit.
type RunPhases struct {
	// Encode is the time to record every command into the encoder.
	Encode time.Duration
	// Finish is CommandEncoder.Finish.
	Finish time.Duration
	// Submit is Queue.Submit.
	Submit time.Duration
}

// LastRun returns the phases of the last Run (zero before one).
func (t *Tape) LastRun() RunPhases { return t.phases }

// DispatchLabels returns the pipeline label of each recorded dispatch, in
// the order of Timings.
func (t *Tape) DispatchLabels() []string {
	var out []string
	for _, o := range t.ops {
		if o.kind == opDispatch {
			out = append(out, o.p.label)
		}
	}
	return out
}

// DisableTiming releases the timestamp resources of EnableTiming; later
// Runs no longer wait or time.
func (t *Tape) DisableTiming() {
	if t.timing != nil {
		t.timing.release(t.d)
		t.timing = nil
	}
}
