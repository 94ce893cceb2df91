package webgpu

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"testing"
)

// scaleWGSL: out[i] = in[i] * s + c, with s, c from the uniform.
const scaleWGSL = `
struct P { n: u32, s: f32, c: f32, _pad: u32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	if (g.x < p.n) { dst[g.x] = src[g.x] * p.s + p.c; }
}
`

// sumWGSL: one workgroup sums n floats into out[0] (tree reduction).
const sumWGSL = `
@group(0) @binding(0) var<uniform> n: vec4<u32>;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
var<workgroup> part: array<f32, 256>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_id) l: vec3<u32>) {
	var acc = 0.0;
	for (var i = l.x; i < n.x; i += 256u) { acc += src[i]; }
	part[l.x] = acc;
	workgroupBarrier();
	for (var s = 128u; s > 0u; s >>= 1u) {
		if (l.x < s) { part[l.x] += part[l.x + s]; }
		workgroupBarrier();
	}
	if (l.x == 0u) { out[0] = part[0]; }
}
`

func TestTapeSeveralDispatchesAndCopy(t *testing.T) {
	d := openTest(t, Options{})
	ctx := testCtx(t)
	const n = 777
	x := randF32(t, n)
	lay := []BindingKind{Uniform, ReadOnlyStorage, Storage}
	scale, err := d.CreateComputePipeline("scale", scaleWGSL, "main", lay)
	must(t, err)
	sum, err := d.CreateComputePipeline("sum", sumWGSL, "main", lay)
	must(t, err)
	st := UsageStorage | UsageCopySrc | UsageCopyDst
	xb, ab, bb, cb := mustBuf(t, d, "x", 4*n, st), mustBuf(t, d, "a", 4*n, st), mustBuf(t, d, "b", 4*n, st), mustBuf(t, d, "c", 4*n, st)
	sb := mustBuf(t, d, "sum", 4, st)
	u1, u2, u3 := mustBuf(t, d, "u1", 16, UsageUniform|UsageCopyDst), mustBuf(t, d, "u2", 16, UsageUniform|UsageCopyDst), mustBuf(t, d, "u3", 16, UsageUniform|UsageCopyDst)
	must(t, d.WriteBuffer(xb, 0, f32Bytes(x)))
	must(t, d.WriteBuffer(u1, 0, append(u32Bytes(n), f32Bytes([]float32{0.5, 1, 0})...)))
	must(t, d.WriteBuffer(u2, 0, append(u32Bytes(n), f32Bytes([]float32{-3, 0.25, 0})...)))
	must(t, d.WriteBuffer(u3, 0, u32Bytes(n, 0, 0, 0)))
	bind := func(p *Pipeline, b ...Binding) *BindGroup {
		bg, err := d.CreateBindGroup(p, b)
		must(t, err)
		return bg
	}
	// a = 0.5x + 1; copy a -> b; c = -3b + 0.25; sum = Σc. Each step depends
	// on the previous one, so ordering inside the pass is checked too.
	tp := d.NewTape()
	tp.Dispatch(scale, bind(scale, Binding{Buffer: u1}, Binding{Buffer: xb}, Binding{Buffer: ab}), (n+63)/64, 1, 1)
	tp.CopyBuffer(ab, 0, bb, 0, 4*n)
	tp.Dispatch(scale, bind(scale, Binding{Buffer: u2}, Binding{Buffer: bb}, Binding{Buffer: cb}), (n+63)/64, 1, 1)
	tp.Dispatch(sum, bind(sum, Binding{Buffer: u3}, Binding{Buffer: cb}, Binding{Buffer: sb}), 1, 1, 1)
	// Zero a, except its first and last 4 floats: checks ClearBuffer's range.
	tp.ClearBuffer(ab, 16, 4*n-32)
	must(t, tp.Err())
	must(t, tp.Run(ctx))
	av := bytesF32(second2(d.ReadBuffer(ctx, ab, 0, 4*n)))
	for i, v := range av {
		want := float32(0)
		if i < 4 || i >= n-4 {
			want = float32(0.5*float64(x[i]) + 1)
		}
		if math.Abs(float64(v-want)) > 1e-6 {
			t.Fatalf("a[%d] after ClearBuffer = %v, want %v", i, v, want)
		}
	}

	var want float64
	cw := make([]float64, n)
	for i, v := range x {
		a := float64(float32(0.5*float64(v) + 1))
		cw[i] = -3*a + 0.25
		want += cw[i]
	}
	got := bytesF32(second2(d.ReadBuffer(ctx, cb, 0, 4*n)))
	for i := range got {
		if math.Abs(float64(got[i])-cw[i]) > 1e-5*math.Max(1, math.Abs(cw[i])) {
			t.Fatalf("c[%d] = %v, want %v", i, got[i], cw[i])
		}
	}
	s := bytesF32(second2(d.ReadBuffer(ctx, sb, 0, 4)))[0]
	// f32 tree sum of 777 terms of magnitude <= 7: error well under 1e-3.
	if math.Abs(float64(s)-want) > 1e-3 {
		t.Fatalf("sum = %v, want %v", s, want)
	}
}

func second2[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// counterWGSL increments c[0] and writes c[0]*7+1 to c[1]: each Run gives a
// distinct value to read back.
const counterWGSL = `
@group(0) @binding(0) var<storage, read_write> c: array<u32>;
@compute @workgroup_size(1)
fn main() { c[0] = c[0] + 1u; c[1] = c[0] * 7u + 1u; }
`

// counterTape records one counterWGSL step (c = {100, 0} at first) that
// reads c[1] back through a ring of slots.
func counterTape(t *testing.T, d *Device, slots int) (*Tape, *Buffer, *Readback) {
	t.Helper()
	return counterTapeBatch(t, d, slots, 1)
}

// counterTapeBatch is counterTape with a ring of slots holding batch
// results each.
func counterTapeBatch(t *testing.T, d *Device, slots, batch int) (*Tape, *Buffer, *Readback) {
	t.Helper()
	p, err := d.CreateComputePipeline("counter", counterWGSL, "main", []BindingKind{Storage})
	must(t, err)
	cb := mustBuf(t, d, "counter", 8, UsageStorage|UsageCopySrc|UsageCopyDst)
	must(t, d.WriteBuffer(cb, 0, u32Bytes(100, 0)))
	bg, err := d.CreateBindGroup(p, []Binding{{Buffer: cb}})
	must(t, err)
	rb, err := d.NewBatchReadback("token", 4, slots, batch)
	must(t, err)
	tp := d.NewTape()
	tp.Dispatch(p, bg, 1, 1, 1)
	tp.ReadInto(rb, cb, 4)
	must(t, tp.Err())
	return tp, cb, rb
}

func TestReadbackRingAndCreationCounter(t *testing.T) {
	d := openTest(t, Options{})
	ctx := testCtx(t)
	tp, _, rb := counterTape(t, d, 3)

	dst := make([]byte, 4)
	if err := rb.Read(ctx, dst); !errors.Is(err, ErrReadbackEmpty) {
		t.Fatalf("read of empty ring: %v", err)
	}
	before := d.Stats()
	// Three steps in flight, then the ring is full.
	for i := 0; i < 3; i++ {
		must(t, tp.Run(ctx))
	}
	if err := tp.Run(ctx); !errors.Is(err, ErrReadbackFull) {
		t.Fatalf("4th run on a 3-slot ring: %v, want ErrReadbackFull", err)
	}
	next := uint32(101)
	read := func() {
		t.Helper()
		must(t, rb.Read(ctx, dst))
		if got, want := binary.LittleEndian.Uint32(dst), next*7+1; got != want {
			t.Fatalf("readback = %d, want %d (step %d)", got, want, next-100)
		}
		next++
	}
	for i := 0; i < 3; i++ {
		read()
	}
	// Steady state: submit step i+1, then read step i, 200 times.
	must(t, tp.Run(ctx))
	for i := 0; i < 200; i++ {
		must(t, tp.Run(ctx))
		read()
	}
	read()
	after := d.Stats()
	if after.Created != before.Created || after.Buffers != before.Buffers || after.BindGroups != before.BindGroups || after.Pipelines != before.Pipelines {
		t.Fatalf("objects created in the loop: %+v -> %+v", before, after)
	}
	if after.Submits-before.Submits != 204 {
		t.Fatalf("submits %d, want 204 (one per Run)", after.Submits-before.Submits)
	}
	if rb.Pending() != 0 {
		t.Fatalf("pending %d", rb.Pending())
	}
}

func TestTapeRecordingErrorsSticky(t *testing.T) {
	d := openTest(t, Options{})
	p, err := d.CreateComputePipeline("counter", counterWGSL, "main", []BindingKind{Storage})
	must(t, err)
	cb := mustBuf(t, d, "c", 8, UsageStorage)
	bg, err := d.CreateBindGroup(p, []Binding{{Buffer: cb}})
	must(t, err)
	tp := d.NewTape()
	tp.Dispatch(p, bg, 0, 1, 1)
	tp.Dispatch(p, bg, 1, 1, 1)
	var ve *ValidationError
	if !errors.As(tp.Err(), &ve) || ve.Field != "ops[0].grid" {
		t.Fatalf("zero grid: %v", tp.Err())
	}
	if err := tp.Run(context.Background()); !errors.As(err, &ve) {
		t.Fatalf("Run after recording error: %v", err)
	}
	tp.Reset()
	tp.Dispatch(p, bg, d.Limits().MaxComputeWorkgroupsPerDimension+1, 1, 1)
	if !errors.As(tp.Err(), &ve) {
		t.Fatalf("grid over limit: %v", tp.Err())
	}
	cp := mustBuf(t, d, "cp", 16, UsageCopySrc|UsageCopyDst)
	tp.Reset()
	tp.CopyBuffer(cp, 0, cp, 12, 8) // destination range past the end
	if !errors.As(tp.Err(), &ve) || ve.Field != "offset" {
		t.Fatalf("copy past the end: %v", tp.Err())
	}
	tp.Reset()
	tp.CopyBuffer(cp, 0, cp, 4, 8) // overlapping ranges
	if !errors.As(tp.Err(), &ve) || ve.Field != "dstOff" {
		t.Fatalf("overlapping copy: %v", tp.Err())
	}
	tp.Reset()
	tp.CopyBuffer(cb, 0, cb, 4, 4) // cb lacks copy usages
	if !errors.As(tp.Err(), &ve) {
		t.Fatalf("copy without usage: %v", tp.Err())
	}
}

func TestDeviceLostAndReopen(t *testing.T) {
	d := openTest(t, Options{})
	b := mustBuf(t, d, "b", 16, UsageStorage|UsageCopyDst)
	d.Destroy()
	if err := d.WriteBuffer(b, 0, u32Bytes(1, 2, 3, 4)); !errors.Is(err, ErrDeviceLost) {
		t.Fatalf("write after loss: %v", err)
	}
	if _, err := d.CreateBuffer("x", 16, UsageStorage); !errors.Is(err, ErrDeviceLost) {
		t.Fatalf("create after loss: %v", err)
	}
	var dl *DeviceLostError
	if !errors.As(d.Lost(), &dl) {
		t.Fatalf("Lost() = %v", d.Lost())
	}
	// Recovery: a new device works.
	d2 := openTest(t, Options{})
	ctx := testCtx(t)
	p, err := d2.CreateComputePipeline("counter", counterWGSL, "main", []BindingKind{Storage})
	must(t, err)
	cb := mustBuf(t, d2, "c", 8, UsageStorage|UsageCopySrc|UsageCopyDst)
	must(t, d2.WriteBuffer(cb, 0, u32Bytes(41, 0)))
	bg, err := d2.CreateBindGroup(p, []Binding{{Buffer: cb}})
	must(t, err)
	tp := d2.NewTape()
	tp.Dispatch(p, bg, 1, 1, 1)
	must(t, tp.Run(ctx))
	out := second2(d2.ReadBuffer(ctx, cb, 0, 8))
	if got := binary.LittleEndian.Uint32(out[4:]); got != 42*7+1 {
		t.Fatalf("after reopen: %d", got)
	}
}

func TestTapeTiming(t *testing.T) {
	d := openTest(t, Options{})
	if !d.Has(FeatureTimestampQuery) {
		t.Logf("adapter %q has no timestamp-query: checking the typed refusal", d.Info().Adapter)
	}
	ctx := testCtx(t)
	p, err := d.CreateComputePipeline("counter", counterWGSL, "main", []BindingKind{Storage})
	must(t, err)
	cb := mustBuf(t, d, "c", 8, UsageStorage|UsageCopySrc|UsageCopyDst)
	must(t, d.WriteBuffer(cb, 0, u32Bytes(0, 0)))
	bg, err := d.CreateBindGroup(p, []Binding{{Buffer: cb}})
	must(t, err)
	tp := d.NewTape()
	for i := 0; i < 5; i++ {
		tp.Dispatch(p, bg, 1, 1, 1)
	}
	err = tp.EnableTiming()
	if !d.Has(FeatureTimestampQuery) {
		var ve *ValidationError
		if !errors.As(err, &ve) {
			t.Fatalf("EnableTiming without the feature: %v", err)
		}
		return
	}
	must(t, err)
	must(t, tp.Run(ctx))
	ts := tp.Timings()
	if len(ts) != 5 {
		t.Fatalf("%d timings, want 5", len(ts))
	}
	t.Logf("dispatch times: %v", ts)
	out := second2(d.ReadBuffer(ctx, cb, 0, 4))
	if got := binary.LittleEndian.Uint32(out); got != 5 {
		t.Fatalf("timed run executed %d dispatches, want 5", got)
	}
	tp.Dispatch(p, bg, 1, 1, 1)
	if err := tp.Run(ctx); err == nil {
		t.Fatal("timed run after the tape grew: want an error asking to re-enable timing")
	}
}
