package webgpu

import (
	"fmt"
	"testing"
)

// BenchmarkTapeStep measures one decode-like step: a tape of N small
// dispatches plus a 4-byte readback, with one step kept in flight (submit
// step i+1, then read step i), as the token loop does.
func BenchmarkTapeStep(b *testing.B) {
	for _, n := range []int{1, 64, 256} {
		b.Run(fmt.Sprintf("dispatches=%d", n), func(b *testing.B) {
			d := openTest(b, Options{PowerPreference: PowerHigh})
			ctx := testCtx(b)
			p, err := d.CreateComputePipeline("counter", counterWGSL, "main", []BindingKind{Storage})
			must(b, err)
			cb := mustBuf(b, d, "c", 8, UsageStorage|UsageCopySrc|UsageCopyDst)
			must(b, d.WriteBuffer(cb, 0, u32Bytes(0, 0)))
			bg, err := d.CreateBindGroup(p, []Binding{{Buffer: cb}})
			must(b, err)
			rb, err := d.NewReadback("token", 4, 2)
			must(b, err)
			tp := d.NewTape()
			for i := 0; i < n; i++ {
				tp.Dispatch(p, bg, 1, 1, 1)
			}
			tp.ReadInto(rb, cb, 4)
			dst := make([]byte, 4)
			must(b, tp.Run(ctx))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				must(b, tp.Run(ctx))
				must(b, rb.Read(ctx, dst))
			}
			b.StopTimer()
			must(b, rb.Read(ctx, dst))
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/dispatch")
		})
	}
}

// BenchmarkWriteBuffer measures queue writes from Go memory in 1 MiB
// chunks (weight streaming) and 16 MiB writes, completion included.
func BenchmarkWriteBuffer(b *testing.B) {
	for _, chunk := range []int{1 << 20, 16 << 20} {
		b.Run(fmt.Sprintf("chunk=%dMiB", chunk>>20), func(b *testing.B) {
			d := openTest(b, Options{PowerPreference: PowerHigh})
			ctx := testCtx(b)
			const size = 64 << 20
			buf := mustBuf(b, d, "w", size, UsageStorage|UsageCopyDst|UsageCopySrc)
			data := f32Bytes(randF32(b, chunk/4))
			b.SetBytes(size)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for off := 0; off < size; off += chunk {
					must(b, d.WriteBuffer(buf, uint64(off), data))
				}
				// Wait for completion: read 4 bytes back.
				if _, err := d.ReadBuffer(ctx, buf, 0, 4); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// readBWWGSL sums a buffer of vec4<f32> with a grid-stride loop; each
// workgroup writes its partial sum (so the reads cannot be optimized away).
const readBWWGSL = `
@group(0) @binding(0) var<uniform> u: vec4<u32>; // n vec4s, total threads
@group(0) @binding(1) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
var<workgroup> part: array<f32, 256>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>, @builtin(workgroup_id) w: vec3<u32>) {
	var acc = vec4<f32>(0.0);
	for (var i = g.x; i < u.x; i += u.y) { acc += src[i]; }
	part[l.x] = acc.x + acc.y + acc.z + acc.w;
	workgroupBarrier();
	for (var s = 128u; s > 0u; s >>= 1u) {
		if (l.x < s) { part[l.x] += part[l.x + s]; }
		workgroupBarrier();
	}
	if (l.x == 0u) { out[w.x] = part[0]; }
}`

// BenchmarkReadBandwidth times (GPU timestamps) one pass over a buffer as
// large as one binding allows (up to 1 GiB): a sanity check that the runtime
// reaches the device's memory bandwidth.
func BenchmarkReadBandwidth(b *testing.B) {
	d := openTest(b, Options{PowerPreference: PowerHigh})
	ctx := testCtx(b)
	if !d.Has(FeatureTimestampQuery) {
		b.Fatalf("adapter %q lacks timestamp-query", d.Info().Adapter)
	}
	size := min(d.Limits().MaxStorageBufferBindingSize, d.Limits().MaxBufferSize, 1<<30) &^ 15
	const groups = 1024
	src := mustBuf(b, d, "src", size, UsageStorage|UsageCopyDst)
	chunk := f32Bytes(randF32(b, 1<<20))
	for off := uint64(0); off < size; off += uint64(len(chunk)) {
		must(b, d.WriteBuffer(src, off, chunk[:min(uint64(len(chunk)), size-off)]))
	}
	u := mustBuf(b, d, "u", 16, UsageUniform|UsageCopyDst)
	must(b, d.WriteBuffer(u, 0, u32Bytes(uint32(size/16), groups*256, 0, 0)))
	out := mustBuf(b, d, "out", 4*groups, UsageStorage|UsageCopySrc)
	p, err := d.CreateComputePipeline("readbw", readBWWGSL, "main", []BindingKind{Uniform, ReadOnlyStorage, Storage})
	must(b, err)
	bg, err := d.CreateBindGroup(p, []Binding{{Buffer: u}, {Buffer: src}, {Buffer: out}})
	must(b, err)
	tp := d.NewTape()
	tp.Dispatch(p, bg, groups, 1, 1)
	must(b, tp.EnableTiming())
	must(b, tp.Run(ctx)) // warm-up
	var gpuNs float64
	b.SetBytes(int64(size))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		must(b, tp.Run(ctx))
		gpuNs += float64(tp.Timings()[0].Nanoseconds())
	}
	b.ReportMetric(float64(size)*float64(b.N)/gpuNs, "GPU-GB/s")
}
