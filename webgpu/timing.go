package webgpu

import "time"

// tapeTiming holds the query resources for per-dispatch GPU timestamps.
type tapeTiming struct {
	n       int // dispatches the resources were sized for
	resolve *Buffer
	read    *Buffer
	q       queryHandle
}

// EnableTiming makes every Run write a GPU timestamp before and after each
// dispatch (one compute pass per dispatch, so the numbers include pass
// boundaries) and wait for the result; Timings returns them. It needs the
// timestamp-query feature, and must be called again after the tape grows.
// For benchmarks only: it creates a query set and two buffers.
func (t *Tape) EnableTiming() error {
	if !t.d.Has(FeatureTimestampQuery) {
		return invalid("EnableTiming", "", "feature", "timestamp-query not granted on %q", t.d.info.Adapter)
	}
	n := t.Dispatches()
	if n == 0 {
		return invalid("EnableTiming", "", "tape", "no dispatches recorded")
	}
	if t.timing != nil {
		t.timing.release(t.d)
	}
	tt := &tapeTiming{n: n}
	var err error
	if tt.resolve, err = t.d.CreateBuffer("timestamps-resolve", uint64(16*n), UsageQueryResolve|UsageCopySrc); err != nil {
		return err
	}
	if tt.read, err = t.d.CreateBuffer("timestamps-read", uint64(16*n), UsageMapRead|UsageCopyDst); err != nil {
		tt.resolve.Destroy()
		return err
	}
	if tt.q, err = t.d.be.createQuerySet(uint32(2 * n)); err != nil {
		tt.resolve.Destroy()
		tt.read.Destroy()
		return err
	}
	t.timing = tt
	return nil
}

func (tt *tapeTiming) release(d *Device) {
	tt.resolve.Destroy()
	tt.read.Destroy()
	d.be.releaseQuerySet(tt.q)
}

// Timings returns the GPU duration of each dispatch of the last timed Run,
// in recording order (nil before one). Durations assume 1 ns per timestamp
// tick, which holds for lavapipe and NVIDIA (Vulkan timestampPeriod 1).
func (t *Tape) Timings() []time.Duration { return t.times }
