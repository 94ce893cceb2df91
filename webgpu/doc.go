// Package webgpu is the GPU runtime: device, statically planned buffers, the
// recorded command tape, with a native (wgpu-native) and a browser backend.
//
// # API
//
//	d, err := webgpu.Open(ctx, webgpu.Options{PowerPreference: webgpu.PowerHigh})
//	info := d.Info()                       // adapter, backend, features, limits
//	b, _ := d.CreateBuffer("w", n, webgpu.UsageStorage|webgpu.UsageCopyDst)
//	_ = d.WriteBuffer(b, 0, bytes)           // off, len multiples of 4
//	p, _ := d.CachedComputePipeline(key, "matvec", wgsl, "main",
//		[]webgpu.BindingKind{webgpu.Uniform, webgpu.ReadOnlyStorage, webgpu.Storage})
//	bg, _ := d.CreateBindGroup(p, []webgpu.Binding{{Buffer: u}, {Buffer: b, Offset: o, Size: s}, {Buffer: y}})
//	t := d.NewTape()
//	t.Dispatch(p, bg, gx, 1, 1)             // recording errors are sticky: t.Err()
//	t.CopyBuffer(src, 0, dst, 0, n)         // also t.ClearBuffer(b, off, n)
//	rb, _ := d.NewReadback("token", 4, 3)   // ring of 3 map-read slots
//	// or NewBatchReadback("token", 4, 3, 4): 4 results a slot, one map each
//	t.ReadInto(rb, tokenBuf, 0)
//	_ = t.Run(ctx)                          // one command buffer, one submit
//	_ = rb.Read(ctx, dst[:4])               // oldest pending result
//	out, _ := d.ReadBuffer(ctx, b, 0, n)    // blocking, tests and evals only
//
// Pipelines take an explicit layout: @group(0) @binding(i) has kind layout[i]
// (no "auto" layouts, which the browser side lacks). WGSL and pipeline errors
// are *CompileError with the compiler's message; rejected arguments are
// *ValidationError naming the field; a lost device gives *DeviceLostError,
// errors.Is(err, ErrDeviceLost), recovered by opening a new Device.
//
// Stats().Created counts buffers, bind groups and pipelines: record everything
// at load and the token loop (Tape.Run, Readback.Read, WriteBuffer) leaves it
// unchanged. ReadBuffer creates a staging buffer and is not for the loop.
//
// NewPlan packs tensors into a few buffers within maxBufferSize and splits
// any tensor larger than maxStorageBufferBindingSize by rows;
// CreatePlanBuffers and Placement.Binding turn it into buffers and bindings.
//
// t.EnableTiming() (timestamp-query) makes Run time each dispatch on the
// GPU, for benchmarks; t.Timings() returns the durations.
//
// # Backends
//
// Native (!js): cogentcore/webgpu v0.23.0 over a static wgpu-native v22
// (Vulkan via lavapipe in CI, a real GPU on the lent machine). Instance and
// device are created by our own C calls (cwgpu_native.go, headers in
// cinclude/): cogentcore leaves parts of those descriptors uninitialized,
// which made requestDevice fail at random. Open requests the adapter's own
// limits (UINT64_MAX "no limit" becomes a defined 2^62, or wgpu would give the
// 256 MiB default). Known wgpu-native v22 behaviour the API works around:
//   - an invalid queue submit aborts the process (handle_error_fatal), so
//     Tape.Run checks for destroyed buffers and mapped readback slots first;
//   - wgpuDeviceDestroy neither fires the lost callback nor fails later
//     calls, so Device.Destroy marks the device lost itself; real losses
//     arrive through the C lost callback and are polled on every call;
//   - no "subgroups" feature name exists; timestamps are raw ticks (1 ns on
//     lavapipe and NVIDIA).
//
// Browser (js): a thin binding of our own over safejs and runtime.js, a
// small JS object holding every GPU object in a registry (Go keeps integer
// ids). Creation is wrapped in error scopes. Large buffers wait for theirs
// (out of memory is reported where it happens); pipelines, bind groups and
// buffers of at most 1 MiB return at once and are checked by WaitPipelines
// (compute pipelines through createComputePipelineAsync, with
// getCompilationInfo messages), so a model load does not wait for a round
// trip to the GPU process per object;
// Tape.Run uploads the encoded tape once and then costs one JS call per step;
// readback uses mapAsync promises held in JS. Calls that await (Open, Create*,
// ReadBuffer, Readback.Read) must not run on the goroutine of a JS callback
// (Go's js/wasm would deadlock): run them on their own goroutine.
// WriteBufferJS writes a JS ArrayBufferView without copying through Go.
package webgpu
