//go:build js

package webgpu

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall/js"

	"github.com/hack-pad/safejs"
)

// The browser backend: Go keeps integer ids into a registry held by
// runtime.js (installed once), so GPU objects never cross as js.Values per
// call, and a whole tape is encoded by one call to rt.runTape.

//go:embed runtime.js
var runtimeJS string

type (
	bufHandle   = int
	bgHandle    = int
	pipeHandle  = jsPipeline
	queryHandle = int
)

type jsPipeline struct{ id, bgl int }

type backend struct {
	rt     safejs.Value
	onLost safejs.Func
	mu     sync.Mutex
	tapes  map[*Tape]tapeCache
	// pendingPipes counts the pipelines, bind groups and small buffers
	// created since the last settlePipelines, which checks them.
	pendingPipes int
	nextID       int
}

var (
	rtOnce sync.Once
	rtVal  safejs.Value
	rtErr  error
)

// runtimeGlobal is the factory runtime.js defines on globalThis.
const runtimeGlobal = "webggufGPURuntime"

// newRuntime returns a fresh runtime.js instance (one device each), so
// reopening after a loss starts clean. The factory is the one a real script
// defined when the program's host loaded runtime.js (the engine worker
// imports it: that works under a Content-Security-Policy without
// 'unsafe-eval'); only when none did is the embedded copy evaluated, which
// such a policy refuses — the error then says so instead of a bare EvalError.
func newRuntime() (safejs.Value, error) {
	rtOnce.Do(func() {
		g := safejs.Global()
		if v, err := g.Get(runtimeGlobal); err == nil && v.Type() == safejs.TypeFunction {
			rtVal = v
			return
		}
		fn, err := g.Get("Function")
		if err == nil {
			var install safejs.Value
			if install, err = fn.New(runtimeJS + "\nreturn globalThis." + runtimeGlobal + ";"); err == nil {
				rtVal, err = install.Invoke()
			}
		}
		if err != nil {
			err = fmt.Errorf("%w (the page did not load webgpu/runtime.js as a script, and evaluating it needs 'unsafe-eval' in the Content-Security-Policy)", err)
		}
		rtErr = err
	})
	if rtErr != nil {
		return safejs.Value{}, fmt.Errorf("webgpu: install runtime.js: %w", rtErr)
	}
	return rtVal.Invoke()
}

func openBackend(ctx context.Context, opt Options, onLost func(reason, msg string)) (*backend, Info, error) {
	rt, err := newRuntime()
	if err != nil {
		return nil, Info{}, err
	}
	lost, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		reason, msg := "unknown", ""
		if len(args) > 1 {
			reason, _ = args[0].String()
			msg, _ = args[1].String()
		}
		onLost(reason, msg)
		return nil
	})
	if err != nil {
		return nil, Info{}, err
	}
	power := ""
	switch opt.PowerPreference {
	case PowerLow:
		power = "low-power"
	case PowerHigh:
		power = "high-performance"
	}
	dis := make([]any, len(opt.DisableFeatures))
	for i, f := range opt.DisableFeatures {
		dis[i] = string(f)
	}
	p, err := call(rt, "open", power, dis, lost)
	if err != nil {
		lost.Release()
		return nil, Info{}, err
	}
	v, err := await(ctx, p)
	if err != nil {
		lost.Release()
		if strings.Contains(err.Error(), "navigator.gpu missing") || strings.Contains(err.Error(), "returned null") {
			return nil, Info{}, fmt.Errorf("%w: %v", ErrNoAdapter, err)
		}
		return nil, Info{}, fmt.Errorf("webgpu: open: %w", err)
	}
	l := get(v, "limits")
	u32 := func(n string) uint32 { return uint32(min(getUint(l, n), 1<<32-1)) }
	info := Info{
		Adapter:         getString(v, "adapter"),
		Vendor:          getString(v, "vendor"),
		Architecture:    getString(v, "architecture"),
		Backend:         "WebGPU",
		SubgroupMinSize: uint32(min(getUint(v, "subgroupMin"), 1024)),
		SubgroupMaxSize: uint32(min(getUint(v, "subgroupMax"), 1024)),
		AdapterType:     "browser",
		Limits: Limits{
			MaxBufferSize:                     getUint(l, "maxBufferSize"),
			MaxStorageBufferBindingSize:       getUint(l, "maxStorageBufferBindingSize"),
			MaxUniformBufferBindingSize:       getUint(l, "maxUniformBufferBindingSize"),
			MinStorageBufferOffsetAlignment:   u32("minStorageBufferOffsetAlignment"),
			MinUniformBufferOffsetAlignment:   u32("minUniformBufferOffsetAlignment"),
			MaxStorageBuffersPerShaderStage:   u32("maxStorageBuffersPerShaderStage"),
			MaxBindingsPerBindGroup:           u32("maxBindingsPerBindGroup"),
			MaxComputeWorkgroupStorageSize:    u32("maxComputeWorkgroupStorageSize"),
			MaxComputeInvocationsPerWorkgroup: u32("maxComputeInvocationsPerWorkgroup"),
			MaxComputeWorkgroupSizeX:          u32("maxComputeWorkgroupSizeX"),
			MaxComputeWorkgroupSizeY:          u32("maxComputeWorkgroupSizeY"),
			MaxComputeWorkgroupSizeZ:          u32("maxComputeWorkgroupSizeZ"),
			MaxComputeWorkgroupsPerDimension:  u32("maxComputeWorkgroupsPerDimension"),
		},
	}
	if fb, err := get(v, "fallback").Bool(); err == nil {
		info.Fallback = fb
	}
	for _, f := range strings.Split(getString(v, "features"), ",") {
		if f != "" {
			info.Features = append(info.Features, Feature(f))
		}
	}
	return &backend{rt: rt, onLost: lost, tapes: map[*Tape]tapeCache{}}, info, nil
}

func (b *backend) close() {
	if dev := get(b.rt, "dev"); dev.Type() == safejs.TypeObject {
		_, _ = dev.Call("destroy")
	}
	// onLost stays alive: destroy() settles device.lost later.
}

// pollLost: the browser's device.lost promise calls onLost directly.
func (b *backend) pollLost() (bool, string, string) { return false, "", "" }

func (b *backend) destroy() {
	if dev := get(b.rt, "dev"); dev.Type() == safejs.TypeObject {
		_, _ = dev.Call("destroy")
	}
}

// created awaits a {id, err} result of a runtime.js creation function.
func (b *backend) created(op, label string, p safejs.Value, perr error) (safejs.Value, error) {
	if perr != nil {
		return safejs.Value{}, &ValidationError{Op: op, Label: label, Msg: perr.Error()}
	}
	v, err := await(context.Background(), p)
	if err != nil {
		return safejs.Value{}, &ValidationError{Op: op, Label: label, Msg: err.Error()}
	}
	if e := getString(v, "err"); e != "" {
		return v, &ValidationError{Op: op, Label: label, Msg: e}
	}
	return v, nil
}

// smallBuffer is the largest buffer created without waiting for its error
// scopes (runtime.js createSmallBuffer): one that cannot run the device
// out of memory; settlePipelines checks it. A model load makes a hundred
// such (readback slots, parameters, norm weights), each a round trip to
// the GPU process if awaited.
const smallBuffer = 1 << 20

func (b *backend) createBuffer(label string, size uint64, usage Usage) (bufHandle, error) {
	if size <= smallBuffer {
		return b.deferred("CreateBuffer", label, "createSmallBuffer", label, float64(size), int(usage))
	}
	p, err := call(b.rt, "createBuffer", label, float64(size), int(usage))
	v, err := b.created("CreateBuffer", label, p, err)
	if err != nil {
		return 0, err
	}
	return int(getUint(v, "id")), nil
}

func (b *backend) destroyBuffer(h bufHandle) { _, _ = b.rt.Call("release", h) }

func (b *backend) writeBuffer(h bufHandle, off uint64, data []byte) error {
	// Copy into a JS-owned staging array at call time: a view of wasm memory
	// could go stale if memory grows (cogentcore's bug 8).
	st, err := call(b.rt, "stage", len(data))
	if err != nil {
		return err
	}
	if _, err := safejs.CopyBytesToJS(st, data); err != nil {
		return err
	}
	if _, err := call(b.rt, "write", h, float64(off), len(data)); err != nil {
		return &ValidationError{Op: "WriteBuffer", Msg: err.Error()}
	}
	return nil
}

func (b *backend) writeBufferJS(h bufHandle, off uint64, arr safejs.Value) error {
	if _, err := call(b.rt, "writeJS", h, float64(off), arr); err != nil {
		return &ValidationError{Op: "WriteBufferJS", Msg: err.Error()}
	}
	return nil
}

func (b *backend) readBuffer(ctx context.Context, h bufHandle, off, size uint64) ([]byte, error) {
	p, err := call(b.rt, "copyOut", h, float64(off), float64(size))
	if err != nil {
		return nil, err
	}
	v, err := await(ctx, p)
	if err != nil {
		return nil, err
	}
	if e := getString(v, "err"); e != "" {
		return nil, errors.New(e)
	}
	out := make([]byte, size)
	if _, err := safejs.CopyBytesToGo(out, get(v, "bytes")); err != nil {
		return nil, err
	}
	return out, nil
}

func (b *backend) createPipeline(label, wgsl, entry string, layout []BindingKind) (pipeHandle, error) {
	kinds := make([]any, len(layout))
	for i, k := range layout {
		kinds[i] = int(k)
	}
	// Returns at once: the WGSL's compilation and the pipeline's creation
	// are checked by settlePipelines (WaitPipelines, which Compile calls).
	v, err := call(b.rt, "createPipeline", label, wgsl, entry, kinds)
	if err != nil {
		return jsPipeline{}, &CompileError{Label: label, Entry: entry, Message: err.Error()}
	}
	if e := getString(v, "err"); e != "" {
		return jsPipeline{}, &CompileError{Label: label, Entry: entry, Message: e}
	}
	b.mu.Lock()
	b.pendingPipes++
	b.mu.Unlock()
	return jsPipeline{id: int(getUint(v, "id")), bgl: int(getUint(v, "bgl"))}, nil
}

// settlePipelines waits for the pipelines runtime.js is still creating
// (createPipeline returns once the WGSL compiled) and reports the first
// that failed as a *CompileError.
func (b *backend) settlePipelines() error {
	b.mu.Lock()
	n := b.pendingPipes
	b.pendingPipes = 0
	b.mu.Unlock()
	if n == 0 {
		return nil
	}
	p, err := call(b.rt, "settlePipelines")
	if err == nil {
		var v safejs.Value
		if v, err = await(context.Background(), p); err == nil {
			if e := getString(v, "err"); e != "" {
				err = errors.New(e)
			} else if e := getString(v, "bgErr"); e != "" {
				return &ValidationError{Op: "CreateBindGroup/CreateBuffer", Msg: e + " (checked in the background)"}
			}
		}
	}
	if err != nil {
		return &CompileError{Label: "pipelines", Entry: "(created in the background)", Message: err.Error()}
	}
	return nil
}

func (b *backend) createBindGroup(p *Pipeline, res []Binding) (bgHandle, error) {
	flat := make([]any, 0, 3*len(res))
	for _, r := range res {
		flat = append(flat, r.Buffer.h, float64(r.Offset), float64(r.Size))
	}
	// Returns at once: its error scopes are checked with the pipelines'
	// (settlePipelines), so Compile reports a refused bind group.
	return b.deferred("CreateBindGroup", p.label, "createBindGroup", p.label, p.h.bgl, flat)
}

// deferred calls a runtime.js creation function that returns {id} at once
// and leaves its error scopes to settlePipelines (runtime.js deferred),
// and counts it as pending there.
func (b *backend) deferred(op, label, method string, args ...any) (int, error) {
	v, err := call(b.rt, method, args...)
	if err == nil {
		if e := getString(v, "err"); e != "" {
			err = errors.New(e)
		}
	}
	if err != nil {
		return 0, &ValidationError{Op: op, Label: label, Msg: err.Error()}
	}
	b.mu.Lock()
	b.pendingPipes++
	b.mu.Unlock()
	return int(getUint(v, "id")), nil
}

// WriteBufferJS queues a write of a JS Uint8Array (or other ArrayBufferView)
// at byte offset off of b, without copying through Go memory: weight
// streaming from OPFS hands its chunk straight to queue.writeBuffer.
func (d *Device) WriteBufferJS(b *Buffer, off uint64, data js.Value) error {
	if err := d.usable(); err != nil {
		return err
	}
	arr := safejs.Safe(data)
	n, err := get(arr, "byteLength").Float()
	if err != nil || n < 0 {
		return invalid("WriteBufferJS", b.label, "data", "not an ArrayBufferView")
	}
	if err := b.checkRange("WriteBufferJS", off, uint64(n)); err != nil {
		return err
	}
	if b.usage&UsageCopyDst == 0 {
		return invalid("WriteBufferJS", b.label, "usage", "buffer lacks CopyDst")
	}
	return d.be.writeBufferJS(b.h, off, arr)
}
