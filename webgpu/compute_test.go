package webgpu

import (
	"math"
	"testing"
)

// axpyWGSL computes y[i] = a*x[i] + y[i] for i < n.
const axpyWGSL = `
struct Params { n: u32, a: f32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
	let i = gid.x;
	if (i < params.n) {
		y[i] = params.a * x[i] + y[i];
	}
}
`

var axpyLayout = []BindingKind{Uniform, ReadOnlyStorage, Storage}

func TestComputeAxpyMatchesCPU(t *testing.T) {
	d := openTest(t, Options{})
	ctx := testCtx(t)
	const n = 1000 // not a multiple of the workgroup size: the tail is checked too
	x, y := randF32(t, n), randF32(t, n)
	a := float32(1.75)

	p, err := d.CreateComputePipeline("axpy", axpyWGSL, "main", axpyLayout)
	if err != nil {
		t.Fatal(err)
	}
	ub := mustBuf(t, d, "params", 16, UsageUniform|UsageCopyDst)
	xb := mustBuf(t, d, "x", 4*n, UsageStorage|UsageCopyDst)
	yb := mustBuf(t, d, "y", 4*n, UsageStorage|UsageCopyDst|UsageCopySrc)
	must(t, d.WriteBuffer(ub, 0, append(u32Bytes(n), f32Bytes([]float32{a, 0, 0})...)))
	must(t, d.WriteBuffer(xb, 0, f32Bytes(x)))
	must(t, d.WriteBuffer(yb, 0, f32Bytes(y)))
	bg, err := d.CreateBindGroup(p, []Binding{{Buffer: ub}, {Buffer: xb}, {Buffer: yb}})
	if err != nil {
		t.Fatal(err)
	}
	tp := d.NewTape()
	tp.Dispatch(p, bg, (n+63)/64, 1, 1)
	must(t, tp.Run(ctx))
	out, err := d.ReadBuffer(ctx, yb, 0, 4*n)
	if err != nil {
		t.Fatal(err)
	}
	got := bytesF32(out)
	for i := range got {
		// float64 reference; a GPU may fuse a*x+y into one FMA, so allow 1 ulp-ish.
		want := float64(a)*float64(x[i]) + float64(y[i])
		if diff := math.Abs(float64(got[i]) - want); diff > 1e-6*math.Max(1, math.Abs(want)) {
			t.Fatalf("y[%d] = %v, want %v (x=%v y=%v)", i, got[i], want, x[i], y[i])
		}
	}
}

func mustBuf(t testing.TB, d *Device, label string, size uint64, u Usage) *Buffer {
	t.Helper()
	b, err := d.CreateBuffer(label, size, u)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
