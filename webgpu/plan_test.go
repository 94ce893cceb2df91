package webgpu

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// checkPlan verifies the plan's invariants independently of how NewPlan
// computes it: limits, alignment, no overlap, every row placed exactly once.
func checkPlan(t *testing.T, lim Limits, opt PlanOptions, specs []TensorSpec, p *Plan) {
	t.Helper()
	maxBuf, maxBind := lim.MaxBufferSize, lim.MaxStorageBufferBindingSize
	if opt.MaxBuffer != 0 {
		maxBuf = min(maxBuf, opt.MaxBuffer)
	}
	if opt.MaxBinding != 0 {
		maxBind = min(maxBind, opt.MaxBinding)
	}
	align, sizeAlign := max(uint64(lim.MinStorageBufferOffsetAlignment), opt.Align), max(4, opt.SizeAlign)
	maxBind = min(maxBind, maxBuf)
	if len(p.Placements) != len(specs) {
		t.Fatalf("%d placements for %d tensors", len(p.Placements), len(specs))
	}
	type span struct{ lo, hi uint64 }
	used := make([][]span, len(p.Buffers))
	for b, size := range p.Buffers {
		if size > maxBuf || size%4 != 0 {
			t.Fatalf("buffer %d size %d (max %d)", b, size, maxBuf)
		}
	}
	for i, pl := range p.Placements {
		s := specs[i]
		if pl.Name != s.Name {
			t.Fatalf("placement %d name %q, want %q", i, pl.Name, s.Name)
		}
		next := uint64(0)
		for j, part := range pl.Parts {
			if part.FirstRow != next || part.Rows == 0 || (s.RowStep > 1 && part.FirstRow%s.RowStep != 0) {
				t.Fatalf("%s part %d: rows start %d (want %d), count %d", s.Name, j, part.FirstRow, next, part.Rows)
			}
			next += part.Rows
			if part.Bytes != part.Rows*s.RowBytes || part.Size < part.Bytes || part.Size%sizeAlign != 0 || part.Size-part.Bytes >= sizeAlign {
				t.Fatalf("%s part %d: bytes %d size %d for %d rows of %d", s.Name, j, part.Bytes, part.Size, part.Rows, s.RowBytes)
			}
			if part.Size > maxBind {
				t.Fatalf("%s part %d: size %d over binding limit %d", s.Name, j, part.Size, maxBind)
			}
			if part.Offset%align != 0 {
				t.Fatalf("%s part %d: offset %d unaligned", s.Name, j, part.Offset)
			}
			if part.Buffer < 0 || part.Buffer >= len(p.Buffers) || part.Offset+part.Size > p.Buffers[part.Buffer] {
				t.Fatalf("%s part %d: [%d,+%d) outside buffer %d", s.Name, j, part.Offset, part.Size, part.Buffer)
			}
			for _, u := range used[part.Buffer] {
				if part.Offset < u.hi && u.lo < part.Offset+part.Size {
					t.Fatalf("%s part %d overlaps another part", s.Name, j)
				}
			}
			used[part.Buffer] = append(used[part.Buffer], span{part.Offset, part.Offset + part.Size})
		}
		if next != s.Rows {
			t.Fatalf("%s: %d of %d rows placed", s.Name, next, s.Rows)
		}
	}
}

func TestPlanLlamaLike(t *testing.T) {
	// An 8B-like model in q4_0 (18 bytes per 32 weights) with an f16
	// embedding of 128256 × 4096 (1002 MiB, over a 128 MiB binding limit).
	lim := Limits{MaxBufferSize: 2 << 30, MaxStorageBufferBindingSize: 128 << 20, MinStorageBufferOffsetAlignment: 256}
	q4 := func(cols uint64) uint64 { return cols / 32 * 18 }
	specs := []TensorSpec{{Name: "token_embd", Rows: 128256, RowBytes: 4096 * 2}}
	for l := 0; l < 4; l++ {
		specs = append(specs,
			TensorSpec{Name: "attn_norm", Rows: 1, RowBytes: 4096 * 4},
			TensorSpec{Name: "attn_q", Rows: 4096, RowBytes: q4(4096)},
			TensorSpec{Name: "attn_k", Rows: 1024, RowBytes: q4(4096)},
			TensorSpec{Name: "ffn_up", Rows: 14336, RowBytes: q4(4096)},
			TensorSpec{Name: "ffn_down", Rows: 4096, RowBytes: q4(14336)},
			TensorSpec{Name: "odd", Rows: 7, RowBytes: 18},
		)
	}
	opt := PlanOptions{}
	p, err := NewPlan(lim, specs, opt)
	must(t, err)
	checkPlan(t, lim, opt, specs, p)
	if n := len(p.Placements[0].Parts); n != 8 {
		t.Fatalf("1 GiB embedding in %d parts, want 8 (128 MiB binding limit)", n)
	}
	if len(p.Buffers) > 2 {
		t.Fatalf("%d buffers for %d tensors, want at most 2", len(p.Buffers), len(specs))
	}
}

func TestPlanRandom(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 2))
	for iter := 0; iter < 300; iter++ {
		align := uint64(1) << (4 + r.IntN(5)) // 16..256
		maxBind := align * uint64(4+r.IntN(200))
		lim := Limits{MaxBufferSize: maxBind * uint64(1+r.IntN(6)), MaxStorageBufferBindingSize: maxBind, MinStorageBufferOffsetAlignment: uint32(align)}
		var specs []TensorSpec
		for i := 0; i < 1+r.IntN(30); i++ {
			rb := uint64(1 + r.IntN(int(maxBind/4)))
			specs = append(specs, TensorSpec{Name: "t", Rows: uint64(1 + r.IntN(50)), RowBytes: rb})
		}
		opt := PlanOptions{}
		if r.IntN(3) == 0 {
			opt.MaxBuffer = lim.MaxBufferSize / 2
		}
		if r.IntN(2) == 0 {
			// As compute/gpu plans weights: 16-byte binding sizes, split
			// points on 64-row steps, sometimes a forced larger alignment.
			opt.SizeAlign = 16 << r.IntN(2)
			opt.SizeAlign = min(opt.SizeAlign, align)
			if r.IntN(2) == 0 {
				opt.Align = align * 2
			}
			for i := range specs {
				specs[i].RowStep = uint64(1 + r.IntN(64))
			}
		}
		p, err := NewPlan(lim, specs, opt)
		var pe *PlanError
		if errors.As(err, &pe) {
			// Legitimate only when a row step cannot fit under the binding limit.
			s := specs[pe.Index]
			mb := maxBind
			if opt.MaxBuffer != 0 {
				mb = min(mb, opt.MaxBuffer)
			}
			al, sa := max(align, opt.Align), max(4, opt.SizeAlign)
			mb &^= sa - 1
			step := al / gcd(s.RowBytes, al)
			if s.RowStep > 1 {
				step = step / gcd(step, s.RowStep) * s.RowStep
			}
			if step*s.RowBytes <= mb && roundUp(s.Rows*s.RowBytes, sa) > mb {
				t.Fatalf("iter %d: refused splittable tensor %+v: %v", iter, s, err)
			}
			continue
		}
		must(t, err)
		checkPlan(t, lim, opt, specs, p)
	}
}

func TestPlanErrors(t *testing.T) {
	lim := Limits{MaxBufferSize: 1 << 20, MaxStorageBufferBindingSize: 1 << 16, MinStorageBufferOffsetAlignment: 256}
	cases := []struct {
		name string
		spec TensorSpec
	}{
		{"zero rows", TensorSpec{Name: "a", Rows: 0, RowBytes: 4}},
		{"overflow", TensorSpec{Name: "b", Rows: 1 << 40, RowBytes: 1 << 30}},
		{"row over binding", TensorSpec{Name: "c", Rows: 2, RowBytes: 1<<16 + 4}},
		{"too many parts", TensorSpec{Name: "d", Rows: 1 << 40, RowBytes: 256}},
	}
	for _, c := range cases {
		_, err := NewPlan(lim, []TensorSpec{{Name: "ok", Rows: 1, RowBytes: 4}, c.spec}, PlanOptions{})
		var pe *PlanError
		if !errors.As(err, &pe) || pe.Index != 1 || pe.Name != c.spec.Name {
			t.Errorf("%s: got %v", c.name, err)
		}
	}
}

// TestPlanOnDevice uploads a tensor split by a plan with a tiny binding
// limit and sums every row on the GPU through the parts' bindings, against a
// float64 sum on the CPU.
func TestPlanOnDevice(t *testing.T) {
	d := openTest(t, Options{})
	ctx := testCtx(t)
	lim := d.Limits()
	const rows, cols = 300, 40
	opt := PlanOptions{MaxBinding: uint64(lim.MinStorageBufferOffsetAlignment) * 16} // forces several parts
	specs := []TensorSpec{{Name: "pad", Rows: 3, RowBytes: 12}, {Name: "w", Rows: rows, RowBytes: 4 * cols}}
	p, err := NewPlan(lim, specs, opt)
	must(t, err)
	checkPlan(t, lim, opt, specs, p)
	parts := p.Placements[1].Parts
	if len(parts) < 3 {
		t.Fatalf("expected a split, got %d parts", len(parts))
	}
	w := randF32(t, rows*cols)
	bufs, err := d.CreatePlanBuffers("plan", p, UsageStorage|UsageCopyDst)
	must(t, err)
	for _, part := range parts {
		must(t, d.WriteBuffer(bufs[part.Buffer], part.Offset, f32Bytes(w[part.FirstRow*cols:(part.FirstRow+part.Rows)*cols])))
	}
	const rowSum = `
@group(0) @binding(0) var<uniform> u: vec4<u32>; // cols, rows, first row
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	if (g.x >= u.y) { return; }
	var s = 0.0;
	for (var c = 0u; c < u.x; c++) { s += w[g.x * u.x + c]; }
	out[u.z + g.x] = s;
}`
	pl, err := d.CreateComputePipeline("rowsum", rowSum, "main", []BindingKind{Uniform, ReadOnlyStorage, Storage})
	must(t, err)
	out := mustBuf(t, d, "out", 4*rows, UsageStorage|UsageCopySrc|UsageCopyDst)
	must(t, d.WriteBuffer(out, 0, f32Bytes(nanFill(rows)))) // poison: unwritten rows show as NaN
	tp := d.NewTape()
	for k, part := range parts {
		u := mustBuf(t, d, "u", 16, UsageUniform|UsageCopyDst)
		must(t, d.WriteBuffer(u, 0, u32Bytes(cols, uint32(part.Rows), uint32(part.FirstRow), 0)))
		bg, err := d.CreateBindGroup(pl, []Binding{{Buffer: u}, p.Placements[1].Binding(bufs, k), {Buffer: out}})
		must(t, err)
		tp.Dispatch(pl, bg, uint32(part.Rows+63)/64, 1, 1)
	}
	must(t, tp.Run(ctx))
	got := bytesF32(second2(d.ReadBuffer(ctx, out, 0, 4*rows)))
	for r := 0; r < rows; r++ {
		var want float64
		for c := 0; c < cols; c++ {
			want += float64(w[r*cols+c])
		}
		if d := math.Abs(float64(got[r]) - want); !(d <= 1e-4) { // NaN (unwritten) fails too
			t.Fatalf("row %d: %v, want %v", r, got[r], want)
		}
	}
}

func nanFill(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(nan())
	}
	return v
}
