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
//	rb, _ := d.NewReadback("token", 4, 3)   // ring of 3 map-read slots
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
// Plan packs tensors into a few buffers within maxBufferSize and splits any
// tensor larger than maxStorageBufferBindingSize by rows.
//
// # Backends
//
// Native (!js): cogentcore/webgpu v0.23.0 over a static wgpu-native (Vulkan
// via lavapipe in CI, a real GPU on the lent machine). Open requests the
// adapter's own limits. Its device-lost callback cannot be used (cogentcore
// passes a Go pointer to C), so loss is detected from error scopes and by
// Device.Destroy. wgpu-native v22 has no "subgroups" feature. A few C entry
// points cogentcore lacks (error scopes around submit, device destroy, timed
// compute passes) are called directly (cwgpu_native.go).
//
// Browser (js): a thin binding of our own over safejs; see device_js.go.
package webgpu
