//go:build js

// Command jscheck runs the browser backend of package webgpu through its
// paces inside a Web Worker and posts a JSON report (see browser_test.go in
// package webgpu, which builds it and runs it in headless Chromium).
package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"syscall/js"
	"time"

	"github.com/webgguf/webgguf/webgpu"
)

type check struct {
	Name string `json:"name"`
	OK   bool   `json:"ok"`
	Msg  string `json:"msg,omitempty"`
}

type report struct {
	Info   webgpu.Info `json:"info"`
	Checks []check     `json:"checks"`
	// StepMicros is the wall time of one Run of a 64-dispatch tape plus
	// the Read of its 4-byte result, one step in flight (informational).
	StepMicros float64 `json:"stepMicros"`
}

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var rep report
	run := func(name string, f func() error) {
		err := f()
		c := check{Name: name, OK: err == nil}
		if err != nil {
			c.Msg = err.Error()
		}
		rep.Checks = append(rep.Checks, c)
	}
	d, err := webgpu.Open(ctx, webgpu.Options{PowerPreference: webgpu.PowerHigh})
	if err != nil {
		rep.Checks = append(rep.Checks, check{Name: "open", Msg: err.Error()})
		post(rep)
		return
	}
	rep.Info = d.Info()
	run("limits", func() error { return checkLimits(d) })
	run("axpy", func() error { return checkAxpy(ctx, d) })
	run("tape-chain", func() error { return checkChain(ctx, d) })
	run("write-js", func() error { return checkWriteJS(ctx, d) })
	run("compile-error", func() error { return checkCompileError(d) })
	run("bindgroup-validation", func() error { return checkBindGroup(d) })
	run("readback-ring", func() error { return checkReadback(ctx, d) })
	run("encode-ahead", func() error { return checkEncodeAhead(ctx, d) })
	run("readback-batch", func() error { return checkReadbackBatch(ctx, d) })
	run("run-phases", func() error { return checkRunPhases(ctx, d) })
	run("step-time", func() (err error) { rep.StepMicros, err = stepTime(ctx, d); return err })
	run("timing", func() error { return checkTiming(ctx, d) })
	run("device-lost", func() error { return checkLost(ctx, d) })
	post(rep)
}

func post(rep report) {
	b, _ := json.Marshal(rep)
	js.Global().Call("postMessage", string(b))
}

const axpyWGSL = `
struct Params { n: u32, a: f32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
	let i = gid.x;
	if (i < params.n) { y[i] = params.a * x[i] + y[i]; }
}`

const counterWGSL = `
@group(0) @binding(0) var<storage, read_write> c: array<u32>;
@compute @workgroup_size(1)
fn main() { c[0] = c[0] + 1u; c[1] = c[0] * 7u + 1u; }`

var axpyLayout = []webgpu.BindingKind{webgpu.Uniform, webgpu.ReadOnlyStorage, webgpu.Storage}

func checkLimits(d *webgpu.Device) error {
	l := d.Limits()
	// The WebGPU default is 128 MiB; SwiftShader offers 1 GiB, so a larger
	// value proves the adapter's limits were requested.
	if l.MaxStorageBufferBindingSize <= 128<<20 && d.Info().Fallback {
		return fmt.Errorf("maxStorageBufferBindingSize %d: adapter limits not requested", l.MaxStorageBufferBindingSize)
	}
	if l.MinStorageBufferOffsetAlignment == 0 || l.MaxComputeWorkgroupsPerDimension == 0 || l.MaxBufferSize == 0 {
		return fmt.Errorf("zero limits: %+v", l)
	}
	return nil
}

func randF32(n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		for out[i] == 0 {
			out[i] = float32(rand.Float64()*4 - 2)
		}
	}
	return out
}

func f32Bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func u32Bytes(v ...uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

func checkAxpy(ctx context.Context, d *webgpu.Device) error {
	const n = 1000
	x, y := randF32(n), randF32(n)
	a := float32(1.75)
	p, err := d.CreateComputePipeline("axpy", axpyWGSL, "main", axpyLayout)
	if err != nil {
		return err
	}
	ub, _ := d.CreateBuffer("params", 16, webgpu.UsageUniform|webgpu.UsageCopyDst)
	xb, _ := d.CreateBuffer("x", 4*n, webgpu.UsageStorage|webgpu.UsageCopyDst)
	yb, err := d.CreateBuffer("y", 4*n, webgpu.UsageStorage|webgpu.UsageCopyDst|webgpu.UsageCopySrc)
	if err != nil {
		return err
	}
	for _, e := range []error{
		d.WriteBuffer(ub, 0, append(u32Bytes(n), f32Bytes([]float32{a, 0, 0})...)),
		d.WriteBuffer(xb, 0, f32Bytes(x)),
		d.WriteBuffer(yb, 0, f32Bytes(y)),
	} {
		if e != nil {
			return e
		}
	}
	bg, err := d.CreateBindGroup(p, []webgpu.Binding{{Buffer: ub}, {Buffer: xb}, {Buffer: yb}})
	if err != nil {
		return err
	}
	t := d.NewTape()
	t.Dispatch(p, bg, (n+63)/64, 1, 1)
	if err := t.Run(ctx); err != nil {
		return err
	}
	out, err := d.ReadBuffer(ctx, yb, 0, 4*n)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		got := math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:]))
		want := float64(a)*float64(x[i]) + float64(y[i])
		if !(math.Abs(float64(got)-want) <= 1e-6*math.Max(1, math.Abs(want))) {
			return fmt.Errorf("y[%d] = %v, want %v", i, got, want)
		}
	}
	return nil
}

const scaleWGSL = `
struct P { n: u32, s: f32, c: f32, _pad: u32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	if (g.x < p.n) { dst[g.x] = src[g.x] * p.s + p.c; }
}`

// checkChain: a = 0.5x + 1; copy a -> b (ends the pass); c = -3b + 0.25,
// all in one tape, against float64.
func checkChain(ctx context.Context, d *webgpu.Device) error {
	const n = 777
	x := randF32(n)
	scale, err := d.CreateComputePipeline("scale", scaleWGSL, "main", axpyLayout)
	if err != nil {
		return err
	}
	st := webgpu.UsageStorage | webgpu.UsageCopySrc | webgpu.UsageCopyDst
	var bufs [4]*webgpu.Buffer
	for i := range bufs {
		if bufs[i], err = d.CreateBuffer(fmt.Sprint("buf", i), 4*n, st); err != nil {
			return err
		}
	}
	xb, ab, bb, cb := bufs[0], bufs[1], bufs[2], bufs[3]
	u1, _ := d.CreateBuffer("u1", 16, webgpu.UsageUniform|webgpu.UsageCopyDst)
	u2, err := d.CreateBuffer("u2", 16, webgpu.UsageUniform|webgpu.UsageCopyDst)
	if err != nil {
		return err
	}
	for _, e := range []error{
		d.WriteBuffer(xb, 0, f32Bytes(x)),
		d.WriteBuffer(u1, 0, append(u32Bytes(n), f32Bytes([]float32{0.5, 1, 0})...)),
		d.WriteBuffer(u2, 0, append(u32Bytes(n), f32Bytes([]float32{-3, 0.25, 0})...)),
	} {
		if e != nil {
			return e
		}
	}
	bg1, err := d.CreateBindGroup(scale, []webgpu.Binding{{Buffer: u1}, {Buffer: xb}, {Buffer: ab}})
	if err != nil {
		return err
	}
	bg2, err := d.CreateBindGroup(scale, []webgpu.Binding{{Buffer: u2}, {Buffer: bb}, {Buffer: cb}})
	if err != nil {
		return err
	}
	t := d.NewTape()
	t.Dispatch(scale, bg1, (n+63)/64, 1, 1)
	t.CopyBuffer(ab, 0, bb, 0, 4*n)
	t.Dispatch(scale, bg2, (n+63)/64, 1, 1)
	t.ClearBuffer(ab, 16, 4*n-32) // zero a except its first and last 4 floats
	if err := t.Run(ctx); err != nil {
		return err
	}
	av, err := d.ReadBuffer(ctx, ab, 0, 4*n)
	if err != nil {
		return err
	}
	for i, v := range x {
		want := float32(0)
		if i < 4 || i >= n-4 {
			want = float32(0.5*float64(v) + 1)
		}
		if got := math.Float32frombits(binary.LittleEndian.Uint32(av[4*i:])); math.Abs(float64(got-want)) > 1e-6 {
			return fmt.Errorf("a[%d] after ClearBuffer = %v, want %v", i, got, want)
		}
	}
	out, err := d.ReadBuffer(ctx, cb, 0, 4*n)
	if err != nil {
		return err
	}
	for i, v := range x {
		a := float64(float32(0.5*float64(v) + 1))
		want := -3*a + 0.25
		got := math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:]))
		if !(math.Abs(float64(got)-want) <= 1e-5*math.Max(1, math.Abs(want))) {
			return fmt.Errorf("c[%d] = %v, want %v", i, got, want)
		}
	}
	return nil
}

func checkWriteJS(ctx context.Context, d *webgpu.Device) error {
	const n = 4096
	src := make([]byte, n)
	for i := range src {
		src[i] = byte(rand.IntN(255) + 1)
	}
	arr := js.Global().Get("Uint8Array").New(n)
	js.CopyBytesToJS(arr, src)
	b, err := d.CreateBuffer("wjs", n, webgpu.UsageStorage|webgpu.UsageCopyDst|webgpu.UsageCopySrc)
	if err != nil {
		return err
	}
	if err := d.WriteBufferJS(b, 0, arr); err != nil {
		return err
	}
	got, err := d.ReadBuffer(ctx, b, 0, n)
	if err != nil {
		return err
	}
	if string(got) != string(src) {
		return errors.New("WriteBufferJS round trip differs")
	}
	var ve *webgpu.ValidationError
	if err := d.WriteBufferJS(b, 2, arr); !errors.As(err, &ve) {
		return fmt.Errorf("unaligned WriteBufferJS: %v", err)
	}
	return nil
}

func checkCompileError(d *webgpu.Device) error {
	// In the browser the WGSL compiles in the background: its error may come
	// from WaitPipelines.
	_, err := d.CreateComputePipeline("broken", "@compute @workgroup_size(1) fn main() { let x: f32 = undefined_thing; }", "main", nil)
	if err == nil {
		err = d.WaitPipelines()
	}
	var ce *webgpu.CompileError
	if !errors.As(err, &ce) || !strings.Contains(ce.Message, "undefined_thing") {
		return fmt.Errorf("got %T %v, want *CompileError naming undefined_thing", err, err)
	}
	// The layout is checked when the pipeline is created, which in the
	// browser happens in the background: the error may come from
	// WaitPipelines.
	_, err = d.CreateComputePipeline("mismatch", axpyWGSL, "main", []webgpu.BindingKind{webgpu.Storage, webgpu.Storage, webgpu.Storage})
	if err == nil {
		err = d.WaitPipelines()
	}
	if !errors.As(err, &ce) || !strings.Contains(ce.Message, "mismatch") {
		return fmt.Errorf("layout mismatch: got %T %v", err, err)
	}
	return nil
}

func checkBindGroup(d *webgpu.Device) error {
	p, err := d.CreateComputePipeline("axpy", axpyWGSL, "main", axpyLayout)
	if err != nil {
		return err
	}
	al := uint64(d.Limits().MinStorageBufferOffsetAlignment)
	ub, _ := d.CreateBuffer("u", 16, webgpu.UsageUniform)
	sb, err := d.CreateBuffer("s", 4*al, webgpu.UsageStorage)
	if err != nil {
		return err
	}
	if _, err := d.CreateBindGroup(p, []webgpu.Binding{{Buffer: ub}, {Buffer: sb, Offset: al, Size: al}, {Buffer: sb, Offset: 2 * al}}); err != nil {
		return fmt.Errorf("valid bind group: %v", err)
	}
	_, err = d.CreateBindGroup(p, []webgpu.Binding{{Buffer: ub}, {Buffer: sb, Offset: 4}, {Buffer: sb}})
	var ve *webgpu.ValidationError
	if !errors.As(err, &ve) || ve.Field != "bindings[1].Offset" {
		return fmt.Errorf("misaligned offset: %v", err)
	}
	return nil
}

// counterTape records one counterWGSL step (c = {100, 0} at first) that
// reads c[1] back through a 2-slot ring.
func counterTape(d *webgpu.Device) (*webgpu.Tape, *webgpu.Buffer, *webgpu.Readback, error) {
	return counterTapeBatch(d, 2, 1)
}

// counterTapeBatch is counterTape with a ring of slots holding batch
// results each.
func counterTapeBatch(d *webgpu.Device, slots, batch int) (*webgpu.Tape, *webgpu.Buffer, *webgpu.Readback, error) {
	p, err := d.CreateComputePipeline("counter", counterWGSL, "main", []webgpu.BindingKind{webgpu.Storage})
	if err != nil {
		return nil, nil, nil, err
	}
	cb, _ := d.CreateBuffer("counter", 8, webgpu.UsageStorage|webgpu.UsageCopySrc|webgpu.UsageCopyDst)
	if err := d.WriteBuffer(cb, 0, u32Bytes(100, 0)); err != nil {
		return nil, nil, nil, err
	}
	bg, err := d.CreateBindGroup(p, []webgpu.Binding{{Buffer: cb}})
	if err != nil {
		return nil, nil, nil, err
	}
	rb, err := d.NewBatchReadback("token", 4, slots, batch)
	if err != nil {
		return nil, nil, nil, err
	}
	t := d.NewTape()
	t.Dispatch(p, bg, 1, 1, 1)
	t.ReadInto(rb, cb, 4)
	return t, cb, rb, t.Err()
}

func checkReadback(ctx context.Context, d *webgpu.Device) error {
	t, _, rb, err := counterTape(d)
	if err != nil {
		return err
	}
	before := d.Stats()
	dst := make([]byte, 4)
	next := uint32(101)
	read := func() error {
		if err := rb.Read(ctx, dst); err != nil {
			return err
		}
		if got := binary.LittleEndian.Uint32(dst); got != next*7+1 {
			return fmt.Errorf("readback %d, want %d", got, next*7+1)
		}
		next++
		return nil
	}
	if err := t.Run(ctx); err != nil {
		return err
	}
	if err := t.Run(ctx); err != nil {
		return err
	}
	if err := t.Run(ctx); !errors.Is(err, webgpu.ErrReadbackFull) {
		return fmt.Errorf("3rd run on a 2-slot ring: %v", err)
	}
	for i := 0; i < 50; i++ {
		if err := read(); err != nil {
			return err
		}
		if err := t.Run(ctx); err != nil {
			return err
		}
	}
	for rb.Pending() > 0 {
		if err := read(); err != nil {
			return err
		}
	}
	if after := d.Stats(); after.Created != before.Created {
		return fmt.Errorf("objects created in the loop: %+v -> %+v", before, after)
	}
	return nil
}

// checkEncodeAhead: a tape encoded while its readback's previous result
// is pending (Tape.Encode) runs on the buffer contents written after the
// encode, fills the ring in order, and refuses a second submit, a submit
// whose slot another Run filled, and a submit after Release.
func checkEncodeAhead(ctx context.Context, d *webgpu.Device) error {
	t, cb, rb, err := counterTape(d)
	if err != nil {
		return err
	}
	dst := make([]byte, 4)
	read := func(want uint32) error {
		if err := rb.Read(ctx, dst); err != nil {
			return err
		}
		if got := binary.LittleEndian.Uint32(dst); got != want {
			return fmt.Errorf("readback %d, want %d", got, want)
		}
		return nil
	}
	if err := t.Run(ctx); err != nil {
		return err
	}
	for i := uint32(0); i < 20; i++ {
		e, err := t.Encode(ctx)
		if err != nil {
			return err
		}
		if err := read((101+2*i)*7 + 1); err != nil {
			return err
		}
		// Written after the encode, before the submit: the step must see it.
		if err := d.WriteBuffer(cb, 0, u32Bytes(101+2*i+1)); err != nil {
			return err
		}
		if err := e.Submit(ctx); err != nil {
			return err
		}
		if err := e.Submit(ctx); err == nil {
			return errors.New("second Submit of one encoding succeeded")
		}
	}
	if err := read((101+2*20)*7 + 1); err != nil {
		return err
	}
	e, err := t.Encode(ctx)
	if err != nil {
		return err
	}
	if err := t.Run(ctx); err != nil {
		return err
	}
	if err := e.Submit(ctx); err == nil {
		return errors.New("Submit after another Run filled its readback slot succeeded")
	}
	if err := read((101+2*20+1)*7 + 1); err != nil {
		return err
	}
	if e, err = t.Encode(ctx); err != nil {
		return err
	}
	e.Release()
	if err := e.Submit(ctx); err == nil {
		return errors.New("Submit after Release succeeded")
	}
	if rb.Pending() != 0 {
		return fmt.Errorf("%d results pending", rb.Pending())
	}
	return nil
}

func stepTime(ctx context.Context, d *webgpu.Device) (float64, error) {
	p, err := d.CreateComputePipeline("counter", counterWGSL, "main", []webgpu.BindingKind{webgpu.Storage})
	if err != nil {
		return 0, err
	}
	cb, _ := d.CreateBuffer("c", 8, webgpu.UsageStorage|webgpu.UsageCopySrc|webgpu.UsageCopyDst)
	bg, err := d.CreateBindGroup(p, []webgpu.Binding{{Buffer: cb}})
	if err != nil {
		return 0, err
	}
	rb, err := d.NewReadback("t", 4, 2)
	if err != nil {
		return 0, err
	}
	t := d.NewTape()
	for i := 0; i < 64; i++ {
		t.Dispatch(p, bg, 1, 1, 1)
	}
	t.ReadInto(rb, cb, 4)
	dst := make([]byte, 4)
	if err := t.Run(ctx); err != nil {
		return 0, err
	}
	const steps = 100
	start := time.Now()
	for i := 0; i < steps; i++ {
		if err := t.Run(ctx); err != nil {
			return 0, err
		}
		if err := rb.Read(ctx, dst); err != nil {
			return 0, err
		}
	}
	el := time.Since(start)
	if err := rb.Read(ctx, dst); err != nil {
		return 0, err
	}
	if got := binary.LittleEndian.Uint32(dst); got != 64*(steps+1)*7+1 {
		return 0, fmt.Errorf("counter %d after %d steps of 64 dispatches", got, steps+1)
	}
	return float64(el.Microseconds()) / steps, nil
}

func checkTiming(ctx context.Context, d *webgpu.Device) error {
	if !d.Has(webgpu.FeatureTimestampQuery) {
		return nil
	}
	p, err := d.CreateComputePipeline("counter", counterWGSL, "main", []webgpu.BindingKind{webgpu.Storage})
	if err != nil {
		return err
	}
	cb, _ := d.CreateBuffer("c", 8, webgpu.UsageStorage|webgpu.UsageCopySrc|webgpu.UsageCopyDst)
	bg, err := d.CreateBindGroup(p, []webgpu.Binding{{Buffer: cb}})
	if err != nil {
		return err
	}
	t := d.NewTape()
	for i := 0; i < 3; i++ {
		t.Dispatch(p, bg, 1, 1, 1)
	}
	if err := t.EnableTiming(); err != nil {
		return err
	}
	if err := t.Run(ctx); err != nil {
		return err
	}
	if n := len(t.Timings()); n != 3 {
		return fmt.Errorf("%d timings", n)
	}
	return nil
}

func checkLost(ctx context.Context, d *webgpu.Device) error {
	d.Destroy()
	if _, err := d.CreateBuffer("x", 16, webgpu.UsageStorage); !errors.Is(err, webgpu.ErrDeviceLost) {
		return fmt.Errorf("create after loss: %v", err)
	}
	d2, err := webgpu.Open(ctx, webgpu.Options{DisableFeatures: []webgpu.Feature{webgpu.FeatureShaderF16}})
	if err != nil {
		return fmt.Errorf("reopen: %v", err)
	}
	defer d2.Close()
	if d2.Has(webgpu.FeatureShaderF16) {
		return errors.New("shader-f16 granted although disabled")
	}
	return checkAxpy(ctx, d2)
}

// checkRunPhases: a Run of a long tape reports the time of its one JS call
// as Encode (Tape.LastRun), Finish zero: what a browser profile's host line
// shows. 2000 dispatches take well over the 100 µs that a worker without
// cross-origin isolation can resolve.
func checkRunPhases(ctx context.Context, d *webgpu.Device) error {
	p, err := d.CreateComputePipeline("counter", counterWGSL, "main", []webgpu.BindingKind{webgpu.Storage})
	if err != nil {
		return err
	}
	c, err := d.CreateBuffer("counter", 8, webgpu.UsageStorage|webgpu.UsageCopyDst|webgpu.UsageCopySrc)
	if err != nil {
		return err
	}
	if err := d.WriteBuffer(c, 0, make([]byte, 8)); err != nil {
		return err
	}
	bg, err := d.CreateBindGroup(p, []webgpu.Binding{{Buffer: c}})
	if err != nil {
		return err
	}
	t := d.NewTape()
	const n = 2000
	for range n {
		t.Dispatch(p, bg, 1, 1, 1)
	}
	if err := t.Run(ctx); err != nil {
		return err
	}
	ph := t.LastRun()
	if ph.Encode <= 0 || ph.Finish != 0 {
		return fmt.Errorf("phases %+v: want a positive Encode and no Finish", ph)
	}
	out, err := d.ReadBuffer(ctx, c, 0, 8)
	if err != nil {
		return err
	}
	if got := binary.LittleEndian.Uint32(out); got != n {
		return fmt.Errorf("counter %d after %d dispatches", got, n)
	}
	return nil
}

// checkReadbackBatch: a batched ring (4 results a slot) through the
// browser's runTape/encodeTape/submitEncoded: results land at their
// offsets and come back in order; a slot's mapAsync starts only at the
// submit of its 4th result (one started earlier would make the next copy
// into it a validation error) or at the Read of a partial batch (startMap;
// a missing one would leave Read without a pending map); encoded steps
// fill the ring like Runs; a full ring is refused; the loop creates
// nothing.
func checkReadbackBatch(ctx context.Context, d *webgpu.Device) error {
	t, _, rb, err := counterTapeBatch(d, 3, 4)
	if err != nil {
		return err
	}
	before := d.Stats()
	dst := make([]byte, 4)
	next := uint32(101)
	read := func() error {
		if err := rb.Read(ctx, dst); err != nil {
			return err
		}
		if got := binary.LittleEndian.Uint32(dst); got != next*7+1 {
			return fmt.Errorf("readback %d, want %d (result %d)", got, next*7+1, next-100)
		}
		next++
		return nil
	}
	maps := func() uint64 { return d.Stats().Maps - before.Maps }
	// A partial batch: three results, no map until the first Read.
	for range 3 {
		if err := t.Run(ctx); err != nil {
			return err
		}
	}
	if maps() != 0 {
		return fmt.Errorf("%d maps started for 3 of 4 results", maps())
	}
	for range 3 {
		if err := read(); err != nil {
			return err
		}
	}
	if maps() != 1 {
		return fmt.Errorf("%d maps after reading a partial batch, want 1", maps())
	}
	// Steady state, 6 in flight, half the steps encoded ahead: 200 results.
	step := func(i int) error {
		if i%2 == 0 {
			return t.Run(ctx)
		}
		e, err := t.Encode(ctx)
		if err != nil {
			return err
		}
		return e.Submit(ctx)
	}
	for i := range 6 {
		if err := step(i); err != nil {
			return err
		}
	}
	for i := 6; i < 200; i++ {
		if err := read(); err != nil {
			return err
		}
		if err := step(i); err != nil {
			return err
		}
	}
	for rb.Pending() > 0 {
		if err := read(); err != nil {
			return err
		}
	}
	if maps() != 51 {
		return fmt.Errorf("%d maps for 3 + 200 results in batches of 4, want 51", maps())
	}
	// Three slots of 4: the 13th result has no slot.
	for range 12 {
		if err := t.Run(ctx); err != nil {
			return err
		}
	}
	if err := t.Run(ctx); !errors.Is(err, webgpu.ErrReadbackFull) {
		return fmt.Errorf("13th result in 3 slots of 4: %v", err)
	}
	for rb.Pending() > 0 {
		if err := read(); err != nil {
			return err
		}
	}
	if after := d.Stats(); after.Created != before.Created {
		return fmt.Errorf("objects created in the loop: %+v -> %+v", before, after)
	}
	return nil
}
