//go:build !js

package webgpu

import (
	"encoding/binary"
	"testing"
)

// TestRunPhasesLabelsDisableTiming: a native Run reports positive encode
// and submit times, DispatchLabels names each dispatch's pipeline, and
// after DisableTiming a grown tape runs untimed (without it the grown tape
// is refused, see TestTapeTiming).
func TestRunPhasesLabelsDisableTiming(t *testing.T) {
	d := openTest(t, Options{})
	ctx := testCtx(t)
	p, err := d.CreateComputePipeline("counter", counterWGSL, "main", []BindingKind{Storage})
	must(t, err)
	cb := mustBuf(t, d, "c", 8, UsageStorage|UsageCopySrc|UsageCopyDst)
	must(t, d.WriteBuffer(cb, 0, u32Bytes(0, 0)))
	bg, err := d.CreateBindGroup(p, []Binding{{Buffer: cb}})
	must(t, err)
	tp := d.NewTape()
	if (tp.LastRun() != RunPhases{}) {
		t.Fatalf("phases before any run: %+v", tp.LastRun())
	}
	for range 3 {
		tp.Dispatch(p, bg, 1, 1, 1)
	}
	must(t, tp.Run(ctx))
	ph := tp.LastRun()
	if ph.Encode <= 0 || ph.Submit <= 0 || ph.Finish < 0 {
		t.Fatalf("phases %+v: want positive encode and submit", ph)
	}
	labels := tp.DispatchLabels()
	if len(labels) != 3 || labels[0] != "counter" || labels[2] != "counter" {
		t.Fatalf("labels %q, want 3× counter", labels)
	}
	if d.Has(FeatureTimestampQuery) {
		must(t, tp.EnableTiming())
		must(t, tp.Run(ctx))
		if len(tp.Timings()) != 3 {
			t.Fatalf("%d timings, want 3", len(tp.Timings()))
		}
		tp.DisableTiming()
	}
	tp.Dispatch(p, bg, 1, 1, 1)
	must(t, tp.Run(ctx))
	out := second2(d.ReadBuffer(ctx, cb, 0, 4))
	want := uint32(3 + 4)
	if d.Has(FeatureTimestampQuery) {
		want += 3
	}
	if got := binary.LittleEndian.Uint32(out); got != want {
		t.Fatalf("counter %d after the runs, want %d", got, want)
	}
}
