package shaders

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/shaders/internal/ref"
	"github.com/webgguf/webgguf/webgpu"
)

var (
	devOnce sync.Once
	devF16  *webgpu.Device // shader-f16 granted when the adapter has it
	devNo   *webgpu.Device // shader-f16 disabled: the SwiftShader-like path
	devErr  error
)

// gpus returns the devices the specializations run on: without shader-f16
// always, and with it when the adapter offers it. A missing adapter fails
// the test (CI installs lavapipe), it never skips.
func gpus(t *testing.T) map[bool]*webgpu.Device {
	t.Helper()
	devOnce.Do(func() {
		ctx := context.Background()
		devNo, devErr = webgpu.Open(ctx, webgpu.Options{DisableFeatures: []webgpu.Feature{webgpu.FeatureShaderF16}})
		if devErr != nil {
			return
		}
		devF16, devErr = webgpu.Open(ctx, webgpu.Options{})
	})
	if devErr != nil {
		t.Fatalf("webgpu.Open: %v (natively this needs a Vulkan driver: apt-get install mesa-vulkan-drivers)", devErr)
	}
	m := map[bool]*webgpu.Device{false: devNo}
	switch {
	case !devF16.Has(webgpu.FeatureShaderF16):
		t.Logf("adapter %q has no shader-f16: only the F16=false variants run here", devNo.Info().Adapter)
	case !compilesF16(devF16):
		// wgpu-native v22's WGSL front end (naga 22) rejects "enable f16;"
		// even with the feature granted; the F16 variants are for browsers.
		t.Logf("%s: shader-f16 granted but WGSL \"enable f16\" does not compile; only the F16=false variants run here", devF16.Info().Backend)
	default:
		m[true] = devF16
	}
	return m
}

func compilesF16(d *webgpu.Device) bool {
	const src = "enable f16;\n@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n" +
		"@compute @workgroup_size(1) fn main() { o[0] = bitcast<u32>(vec2<f16>(1.0, 2.0)); }\n"
	_, err := d.CreateComputePipeline("f16-probe", src, "main", []webgpu.BindingKind{webgpu.Storage})
	return err == nil
}

// newRand returns a generator from a fresh seed, logged for reproduction.
func newRand(t *testing.T) *rand.Rand {
	seed := rand.Uint64()
	t.Logf("random seed %d", seed)
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
}

// randVec returns n values uniform in ±[lo, hi), never zero.
func randVec(r *rand.Rand, n int, lo, hi float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		x := lo + r.Float64()*(hi-lo)
		if r.IntN(2) == 0 {
			x = -x
		}
		v[i] = float32(x)
	}
	return v
}

// f16Fields lists, per quantized format, the byte offsets of its f16 scale
// fields within a block; everything else in a block is free bits.
var f16Fields = map[gguf.GGMLType][]int{
	gguf.TypeQ4_0: {0}, gguf.TypeQ4_1: {0, 2}, gguf.TypeQ5_0: {0}, gguf.TypeQ5_1: {0, 2},
	gguf.TypeQ8_0: {0}, gguf.TypeQ2_K: {80, 82}, gguf.TypeQ3_K: {108}, gguf.TypeQ4_K: {0, 2},
	gguf.TypeQ5_K: {0, 2}, gguf.TypeQ6_K: {208}, gguf.TypeIQ4_NL: {0}, gguf.TypeIQ4_XS: {0},
	gguf.TypeTQ1_0: {52}, gguf.TypeTQ2_0: {64},
}

// randMatrix returns random weights (randWeights) of rows×K, packed
// (Pack) when packed, with their float64 values.
func randMatrix(t *testing.T, r *rand.Rand, typ gguf.GGMLType, packed bool, rows, K int) ([]byte, []float64) {
	t.Helper()
	w := randWeights(t, r, typ, rows, K)
	wd, err := ref.Dequant(typ, w, rows*K)
	if err != nil {
		t.Fatal(err)
	}
	if packed {
		if w, err = Pack(typ, K, w); err != nil {
			t.Fatal(err)
		}
	}
	return w, wd
}

// randWeights returns rows×K random weights of type t. Quantized blocks are
// random bytes (every bit pattern of quants, sub-scales and high bits) with
// each f16 scale set to a finite value of magnitude [2^-10, 2^-6), so values
// stay O(1); plain types hold random values in ±[0.05, 1).
func randWeights(t *testing.T, r *rand.Rand, typ gguf.GGMLType, rows, K int) []byte {
	t.Helper()
	n := rows * K
	if fields, ok := f16Fields[typ]; ok {
		size, ok := typ.RowBytes(int64(n))
		if !ok {
			t.Fatalf("%s: %d elements is not whole blocks", typ, n)
		}
		b := make([]byte, size)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		for blk := 0; blk < len(b); blk += typ.TypeSize() {
			for _, off := range fields {
				v := float32(math.Ldexp(1+r.Float64(), -10+r.IntN(4)))
				if r.IntN(2) == 0 {
					v = -v
				}
				binary.LittleEndian.PutUint16(b[blk+off:], gguf.F32ToF16(v))
			}
		}
		return b
	}
	b, err := gguf.Quantize(typ, randVec(r, n, 0.05, 1))
	if err != nil {
		t.Fatalf("gguf.Quantize(%s): %v", typ, err)
	}
	return b
}

func f32Bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func u32Bytes(v []uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

func bytesF32(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

func bytesU32(b []byte) []uint32 {
	v := make([]uint32, len(b)/4)
	for i := range v {
		v[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return v
}

// poison returns n bytes of quiet NaNs (0x7fc00000 words), the initial
// content of every output so an element the kernel fails to write shows.
func poison(n int) []byte {
	b := make([]byte, (n+3)/4*4)
	for i := 0; i < len(b); i += 4 {
		binary.LittleEndian.PutUint32(b[i:], 0x7fc00000)
	}
	return b
}

// launch builds key, uploads params and one buffer per storage binding
// (bufs[i] is binding i+1), runs one dispatch for shape, and returns the
// final contents of every storage binding.
func launch(t *testing.T, d *webgpu.Device, key Key, params Params, shape Shape, bufs ...[]byte) [][]byte {
	t.Helper()
	k, err := Build(key)
	if err != nil {
		t.Fatalf("Build(%v): %v", key, err)
	}
	if len(bufs) != len(k.Bindings)-1 {
		t.Fatalf("%v: %d buffers for %d storage bindings %v", key, len(bufs), len(k.Bindings)-1, k.BindingNames[1:])
	}
	layout := make([]webgpu.BindingKind, len(k.Bindings))
	for i, b := range k.Bindings {
		layout[i] = webgpu.BindingKind(b)
	}
	p, err := d.CachedComputePipeline(k.Key.String(), k.Key.Op.String(), k.WGSL, k.Entry, layout)
	if err != nil {
		t.Fatalf("%v: pipeline: %v", key, err)
	}
	pb := params.Bytes()
	u, err := d.CreateBuffer("params", uint64(len(pb)), webgpu.UsageUniform|webgpu.UsageCopyDst)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Destroy()
	if err := d.WriteBuffer(u, 0, pb); err != nil {
		t.Fatal(err)
	}
	binds := []webgpu.Binding{{Buffer: u}}
	var sb []*webgpu.Buffer
	for i, data := range bufs {
		// Multiples of 16: vec4-typed bindings (matvec's x) need whole vec4s.
		size := (len(data) + 15) / 16 * 16
		if size == 0 {
			size = 16
		}
		b, err := d.CreateBuffer(k.BindingNames[i+1], uint64(size), webgpu.UsageStorage|webgpu.UsageCopyDst|webgpu.UsageCopySrc)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Destroy()
		padded := append(append([]byte(nil), data...), make([]byte, size-len(data))...)
		if err := d.WriteBuffer(b, 0, padded); err != nil {
			t.Fatal(err)
		}
		binds = append(binds, webgpu.Binding{Buffer: b})
		sb = append(sb, b)
	}
	bg, err := d.CreateBindGroup(p, binds)
	if err != nil {
		t.Fatalf("%v: bind group: %v", key, err)
	}
	tape := d.NewTape()
	x, y, z := k.Dispatch(shape)
	tape.Dispatch(p, bg, x, y, z)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	if err := tape.Run(ctx); err != nil {
		t.Fatalf("%v: run: %v", key, err)
	}
	out := make([][]byte, len(sb))
	for i, b := range sb {
		if out[i], err = d.ReadBuffer(ctx, b, 0, b.Size()); err != nil {
			t.Fatalf("%v: read %s: %v", key, k.BindingNames[i+1], err)
		}
	}
	return out
}

// checkClose compares got with want element-wise: |got-want| <= tol[i]
// (NaN, e.g. an unwritten poisoned element, always fails). It reports the
// worst error relative to its tolerance.
func checkClose(t *testing.T, what string, got []float32, want, tol []float64) {
	t.Helper()
	if len(got) < len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	worst, wi, bad := 0.0, 0, 0
	for i, w := range want {
		e := math.Abs(float64(got[i]) - w)
		if math.IsNaN(e) || e > tol[i] {
			if bad < 5 {
				t.Errorf("%s[%d] = %g, want %g (tolerance %.3g)", what, i, got[i], w, tol[i])
			}
			bad++
			continue
		}
		if r := e / tol[i]; r > worst {
			worst, wi = r, i
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d values out of tolerance", what, bad, len(want))
	}
	t.Logf("%s: worst error %.2g of tolerance at %d", what, worst, wi)
}

func relTol(mag []float64, rel, abs float64) []float64 {
	tol := make([]float64, len(mag))
	for i, m := range mag {
		tol[i] = rel*m + abs
	}
	return tol
}

func name(parts ...any) string { return fmt.Sprint(parts...) }

// randFreqFactors returns n positive RoPE frequency factors (rope_freqs) in
// [1, 8) and their float64 values for the reference.
func randFreqFactors(r *rand.Rand, n int) ([]float32, []float64) {
	f := randVec(r, n, 1, 8)
	for i := range f {
		f[i] = float32(math.Abs(float64(f[i])))
	}
	return f, ref.Widen(f)
}
