//go:build !js

package webgpu

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/cogentcore/webgpu/wgpu"
)

type (
	bufHandle  = *wgpu.Buffer
	bgHandle   = *wgpu.BindGroup
	pipeHandle = *nativePipeline
)

type nativePipeline struct {
	p   *wgpu.ComputePipeline
	bgl *wgpu.BindGroupLayout
	pl  *wgpu.PipelineLayout
}

// backend is the wgpu-native device (through cogentcore/webgpu).
type backend struct {
	inst    *wgpu.Instance
	adapter *wgpu.Adapter
	dev     *wgpu.Device
	q       *wgpu.Queue
	// mu serializes submissions and polls: wgpu-native is thread-safe, but
	// map callbacks fire inside Poll and update Go state.
	mu      sync.Mutex
	scopeMu sync.Mutex // held around every error-scope push/pop pair
	onLost  func(reason, msg string)
	st      devState // C-side callback state
	// fallback is a software adapter: waits sleep between polls from
	// the start (pollWait).
	fallback bool
}

var featureNames = map[Feature]wgpu.FeatureName{
	FeatureShaderF16:      wgpu.FeatureNameShaderF16,
	FeatureTimestampQuery: wgpu.FeatureNameTimestampQuery,
	// subgroups: wgpu-native v22 (cogentcore v0.23.0) has no feature name for it.
}

func init() {
	// wgpu-native logs every captured validation error at Error level; we
	// return them as typed errors, so its log is noise unless asked for.
	if os.Getenv("WEBGGUF_WGPU_LOG") == "" {
		wgpu.SetLogLevel(wgpu.LogLevelOff)
	} else {
		wgpu.SetLogLevel(wgpu.LogLevelInfo)
	}
}

func openBackend(_ context.Context, opt Options, onLost func(reason, msg string)) (*backend, Info, error) {
	defer quietWayland()()
	// Not wgpu.CreateInstance: cogentcore v0.23.0 mallocs the instance extras
	// without zeroing them, and wgpu-native aborts on the garbage gles3 version.
	inst := createInstance()
	if inst == nil {
		return nil, Info{}, fmt.Errorf("%w: wgpuCreateInstance failed", ErrNoAdapter)
	}
	pp := wgpu.PowerPreferenceUndefined
	switch opt.PowerPreference {
	case PowerLow:
		pp = wgpu.PowerPreferenceLowPower
	case PowerHigh:
		pp = wgpu.PowerPreferenceHighPerformance
	}
	ad, err := inst.RequestAdapter(&wgpu.RequestAdapterOptions{PowerPreference: pp})
	if err != nil || ad == nil {
		inst.Release()
		return nil, Info{}, fmt.Errorf("%w: wgpu-native found no Vulkan/Metal/DX12 adapter (install mesa-vulkan-drivers for lavapipe): %v", ErrNoAdapter, err)
	}
	disabled := map[Feature]bool{}
	for _, f := range opt.DisableFeatures {
		disabled[f] = true
	}
	var req []wgpu.FeatureName
	var got []Feature
	for _, f := range []Feature{FeatureShaderF16, FeatureSubgroups, FeatureTimestampQuery} {
		n, ok := featureNames[f]
		if ok && !disabled[f] && ad.HasFeature(n) {
			req = append(req, n)
			got = append(got, f)
		}
	}
	// The adapter's own limits are requested (the defaults cap bindings at
	// 128 MiB), through our own C call: see cwgpu_native.go.
	dev, st, err := requestDevice(ad, req)
	if err != nil {
		ad.Release()
		inst.Release()
		return nil, Info{}, fmt.Errorf("webgpu: %w", err)
	}
	dl := dev.GetLimits().Limits
	ai := ad.GetInfo()
	// wgpu-native v22 puts the device name in "description" and hex ids in
	// "vendor"/"device".
	name := ai.DriverDescription
	if name == "" {
		name = ai.Name
	}
	info := Info{
		Adapter:      name,
		Vendor:       ai.VendorName,
		Architecture: ai.Architecture,
		Driver:       fmt.Sprintf("vendor %#x device %#x", ai.VendorId, ai.DeviceId),
		Backend:      ai.BackendType.String(),
		AdapterType:  ai.AdapterType.String(),
		Fallback:     ai.AdapterType == wgpu.AdapterTypeCPU,
		Features:     got,
		Limits: Limits{
			MaxBufferSize:                     dl.MaxBufferSize,
			MaxStorageBufferBindingSize:       dl.MaxStorageBufferBindingSize,
			MaxUniformBufferBindingSize:       dl.MaxUniformBufferBindingSize,
			MinStorageBufferOffsetAlignment:   dl.MinStorageBufferOffsetAlignment,
			MinUniformBufferOffsetAlignment:   dl.MinUniformBufferOffsetAlignment,
			MaxStorageBuffersPerShaderStage:   dl.MaxStorageBuffersPerShaderStage,
			MaxBindingsPerBindGroup:           dl.MaxBindingsPerBindGroup,
			MaxComputeWorkgroupStorageSize:    dl.MaxComputeWorkgroupStorageSize,
			MaxComputeInvocationsPerWorkgroup: dl.MaxComputeInvocationsPerWorkgroup,
			MaxComputeWorkgroupSizeX:          dl.MaxComputeWorkgroupSizeX,
			MaxComputeWorkgroupSizeY:          dl.MaxComputeWorkgroupSizeY,
			MaxComputeWorkgroupSizeZ:          dl.MaxComputeWorkgroupSizeZ,
			MaxComputeWorkgroupsPerDimension:  dl.MaxComputeWorkgroupsPerDimension,
		},
	}
	return &backend{inst: inst, adapter: ad, dev: dev, q: dev.GetQueue(), onLost: onLost, st: st, fallback: info.Fallback}, info, nil
}

func (b *backend) close() {
	b.q.Release()
	b.dev.Release()
	b.adapter.Release()
	b.inst.Release()
	// b.st is not freed: wgpu-native may call the lost callback whenever the
	// last reference to the device drops (buffers not destroyed hold one),
	// so the 4 KiB state is leaked per Open rather than risk a write after free.
}

// pollLost reports a loss signalled by wgpu-native's device-lost callback.
func (b *backend) pollLost() (bool, string, string) { return b.st.lost() }

// takeUncaptured returns an error raised outside our error scopes since the
// last call, as text.
func (b *backend) takeUncaptured() string { return b.st.takeUncaptured() }

func (b *backend) destroy() { destroyDevice(b.dev) }

// scoped runs f inside error scopes and turns whatever they caught into a
// *ValidationError (or, for out-of-memory, an error naming it).
func (b *backend) scoped(op, label string, f func() error) error {
	kind, msg, err := b.errorScope(f)
	if err != nil {
		return &ValidationError{Op: op, Label: label, Msg: trimWgpu(err.Error())}
	}
	if kind != "" {
		return &ValidationError{Op: op, Label: label, Msg: kind + ": " + msg}
	}
	return nil
}

// errorScope is the package errorScope plus device-loss detection: wgpu
// reports work on a lost device as a "device-lost" error or as a validation
// error saying the parent device is lost.
func (b *backend) errorScope(f func() error) (kind, msg string, err error) {
	// Error scopes are a per-device stack: serialize, or two goroutines'
	// push/pop pairs would interleave and catch each other's errors.
	b.scopeMu.Lock()
	kind, msg, err = errorScope(b.dev, f)
	b.scopeMu.Unlock()
	switch {
	case kind == "device-lost":
		b.onLost("unknown", msg)
	case strings.Contains(msg, "evice is lost") || (err != nil && strings.Contains(err.Error(), "evice is lost")):
		b.onLost("unknown", msg)
	}
	return kind, msg, err
}

// trimWgpu removes cogentcore's "wgpu.(*Device).CreateX(): " prefix.
func trimWgpu(s string) string {
	if i := strings.Index(s, "(): "); i >= 0 && strings.HasPrefix(s, "wgpu.") {
		return s[i+4:]
	}
	return s
}

func (b *backend) createBuffer(label string, size uint64, usage Usage) (bufHandle, error) {
	var buf *wgpu.Buffer
	err := b.scoped("CreateBuffer", label, func() (err error) {
		buf, err = b.dev.CreateBuffer(&wgpu.BufferDescriptor{Label: label, Size: size, Usage: wgpu.BufferUsage(usage)})
		return err
	})
	if err != nil {
		if buf != nil {
			buf.Release()
		}
		return nil, err
	}
	return buf, nil
}

func (b *backend) destroyBuffer(h bufHandle) {
	h.Destroy()
	h.Release()
}

func (b *backend) writeBuffer(h bufHandle, off uint64, data []byte) error {
	return b.scoped("WriteBuffer", "", func() error { return b.q.WriteBuffer(h, off, data) })
}

func (b *backend) readBuffer(ctx context.Context, h bufHandle, off, size uint64) ([]byte, error) {
	st, err := b.createBuffer("readback-staging", size, UsageMapRead|UsageCopyDst)
	if err != nil {
		return nil, err
	}
	defer b.destroyBuffer(st)
	err = b.scoped("ReadBuffer", "", func() error {
		enc, err := b.dev.CreateCommandEncoder(nil)
		if err != nil {
			return err
		}
		defer enc.Release()
		if err := enc.CopyBufferToBuffer(h, off, st, 0, size); err != nil {
			return err
		}
		cb, err := enc.Finish(nil)
		if err != nil {
			return err
		}
		defer cb.Release()
		b.mu.Lock()
		b.q.Submit(cb)
		b.mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	m := &nativeMap{}
	if err := b.startMap(st, size, m); err != nil {
		return nil, err
	}
	if err := b.waitMap(ctx, m); err != nil {
		return nil, err
	}
	out := make([]byte, size)
	copy(out, st.GetMappedRange(0, uint(size)))
	return out, b.scoped("ReadBuffer", "", st.Unmap)
}

// nativeMap is the state of one mapAsync; done is set inside Poll.
type nativeMap struct {
	done   bool
	status wgpu.BufferMapAsyncStatus
}

func (b *backend) startMap(h bufHandle, size uint64, m *nativeMap) error {
	err := b.scoped("MapAsync", "", func() error {
		b.mu.Lock()
		defer b.mu.Unlock()
		*m = nativeMap{}
		mapRead(h, size, func(s wgpu.BufferMapAsyncStatus) {
			m.status, m.done = s, true
		})
		return nil
	})
	if err != nil {
		// Make a later wait fail instead of polling for a callback that
		// will never come.
		b.mu.Lock()
		if !m.done {
			m.status, m.done = wgpu.BufferMapAsyncStatusValidationError, true
		}
		b.mu.Unlock()
	}
	return err
}

// waitMap polls until the map callback has run. If the queue is empty and
// the callback still has not run after a few polls, it never will: fail
// rather than hang.
//
// It never blocks inside wgpu's Poll(wait): wgpu-native v22 waits there at
// most 5 s and then treats the submission as complete whether it is or
// not, so it resets the submission's command pool and destroys the buffers
// released meanwhile while the driver still executes it. On lavapipe a
// step that JIT-compiles its shaders cold, on a busy 2-core machine, runs
// that long: the validation layer reported VUID-vkResetCommandPool-
// commandPool-00040 and VUID-vkDestroyBuffer-buffer-00922, then lavapipe
// crashed in its submit thread (the CI runs that died with SIGSEGV in
// compute/gpu). A long prefill on a slow GPU would do the same. Poll(false)
// reads the fence as it stands, so waiting is polling (pollWait).
func (b *backend) waitMap(ctx context.Context, m *nativeMap) error {
	idle := 0
	var w pollWait
	for {
		b.mu.Lock()
		done, status := m.done, m.status
		if !done {
			if b.dev.Poll(false, nil) {
				idle++
			} else {
				idle = 0
			}
			done, status = m.done, m.status
		}
		b.mu.Unlock()
		if done {
			if status != wgpu.BufferMapAsyncStatusSuccess {
				return fmt.Errorf("mapAsync: %s", status)
			}
			return nil
		}
		if idle >= 3 {
			return errors.New("mapAsync: callback never ran with the queue empty")
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		w.pause(b.fallback)
	}
}

// pollWait paces the polls of one wait. On a hardware GPU the first
// pollSpin polls back to back (yielding the thread between polls): a
// decode step takes 1-2 ms on the H200, and a 1 ms window there cost F16
// decode 1.3% (sleeps overshoot by tens of µs). After that, and from the
// start on a software adapter, whose steps take tens of milliseconds and
// whose threads need the cores, it sleeps between polls, 20 µs doubling up
// to pollMaxSleep (software: 20× that).
type pollWait struct {
	start time.Time
	sleep time.Duration
}

const (
	pollSpin     = 4 * time.Millisecond
	pollMaxSleep = 100 * time.Microsecond
)

func (w *pollWait) pause(software bool) {
	if w.start.IsZero() {
		w.start = time.Now()
	}
	if !software && time.Since(w.start) < pollSpin {
		runtime.Gosched()
		return
	}
	limit := pollMaxSleep
	if software {
		limit *= 20
	}
	w.sleep = min(max(2*w.sleep, 20*time.Microsecond), limit)
	time.Sleep(w.sleep)
}

func bindingType(k BindingKind) wgpu.BufferBindingType {
	switch k {
	case Uniform:
		return wgpu.BufferBindingTypeUniform
	case ReadOnlyStorage:
		return wgpu.BufferBindingTypeReadOnlyStorage
	}
	return wgpu.BufferBindingTypeStorage
}

// settlePipelines: native pipelines are ready when createPipeline returns.
func (b *backend) settlePipelines() error { return nil }

func (b *backend) createPipeline(label, wgsl, entry string, layout []BindingKind) (pipeHandle, error) {
	np := &nativePipeline{}
	var mod *wgpu.ShaderModule
	compile := func(f func() error) error {
		kind, msg, err := b.errorScope(f)
		if err != nil {
			return &CompileError{Label: label, Entry: entry, Message: trimWgpu(err.Error())}
		}
		if kind != "" {
			return &CompileError{Label: label, Entry: entry, Message: kind + ": " + msg}
		}
		return nil
	}
	err := compile(func() (err error) {
		mod, err = b.dev.CreateShaderModule(&wgpu.ShaderModuleDescriptor{Label: label, WGSLDescriptor: &wgpu.ShaderModuleWGSLDescriptor{Code: wgsl}})
		return err
	})
	if err != nil {
		if mod != nil {
			mod.Release()
		}
		return nil, err
	}
	defer mod.Release()
	entries := make([]wgpu.BindGroupLayoutEntry, len(layout))
	for i, k := range layout {
		entries[i] = wgpu.BindGroupLayoutEntry{Binding: uint32(i), Visibility: wgpu.ShaderStageCompute, Buffer: wgpu.BufferBindingLayout{Type: bindingType(k)}}
	}
	err = b.scoped("CreateComputePipeline", label, func() (err error) {
		if np.bgl, err = b.dev.CreateBindGroupLayout(&wgpu.BindGroupLayoutDescriptor{Label: label, Entries: entries}); err != nil {
			return err
		}
		np.pl, err = b.dev.CreatePipelineLayout(&wgpu.PipelineLayoutDescriptor{Label: label, BindGroupLayouts: []*wgpu.BindGroupLayout{np.bgl}})
		return err
	})
	if err != nil {
		np.release()
		return nil, err
	}
	err = compile(func() (err error) {
		np.p, err = b.dev.CreateComputePipeline(&wgpu.ComputePipelineDescriptor{Label: label, Layout: np.pl, Compute: wgpu.ProgrammableStageDescriptor{Module: mod, EntryPoint: entry}})
		return err
	})
	if err != nil {
		np.release()
		return nil, err
	}
	return np, nil
}

func (np *nativePipeline) release() {
	if np.p != nil {
		np.p.Release()
	}
	if np.pl != nil {
		np.pl.Release()
	}
	if np.bgl != nil {
		np.bgl.Release()
	}
}

func (b *backend) createBindGroup(p *Pipeline, res []Binding) (bgHandle, error) {
	entries := make([]wgpu.BindGroupEntry, len(res))
	for i, r := range res {
		entries[i] = wgpu.BindGroupEntry{Binding: uint32(i), Buffer: r.Buffer.h, Offset: r.Offset, Size: r.Size}
	}
	var bg *wgpu.BindGroup
	err := b.scoped("CreateBindGroup", p.label, func() (err error) {
		bg, err = b.dev.CreateBindGroup(&wgpu.BindGroupDescriptor{Label: p.label, Layout: p.h.bgl, Entries: entries})
		return err
	})
	if err != nil {
		if bg != nil {
			bg.Release()
		}
		return nil, err
	}
	return bg, nil
}

// quietWayland points XDG_RUNTIME_DIR at an empty private directory while
// the Vulkan instance and device are created, when it is unset (servers,
// CI, containers): the Vulkan driver's probe for a Wayland display would
// otherwise print "error: XDG_RUNTIME_DIR is invalid or not set" twice
// on every start. The returned func restores the environment.
func quietWayland() func() {
	if _, ok := os.LookupEnv("XDG_RUNTIME_DIR"); ok {
		return func() {}
	}
	dir, err := os.MkdirTemp("", "webgguf-xdg-")
	if err != nil {
		return func() {}
	}
	os.Setenv("XDG_RUNTIME_DIR", dir)
	return func() {
		os.Unsetenv("XDG_RUNTIME_DIR")
		os.Remove(dir)
	}
}
