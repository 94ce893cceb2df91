package gpu_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/compute/computetest"
	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/enginetest"
	"github.com/webgguf/webgguf/gguf"
)

// TestShiftCacheMatchesFloat64: the GPU's KV shift on random caches, f16
// and f32, both rope modes, partial rotation, frequency factors,
// overlapping moves longer than their distance (several dispatches) and
// disjoint ones: every moved key equals its old value rotated by RoPE at
// −distance in float64 (to the cache type's rounding), every moved value
// is copied bit for bit, and the rows outside the move are untouched.
func TestShiftCacheMatchesFloat64(t *testing.T) {
	const dim, heads, length = 32, 3, 96
	rng := rand.New(rand.NewPCG(34, 7))
	cases := []struct {
		name           string
		kv             gguf.GGMLType
		mode           compute.RopeMode
		nrot           int
		freqs          bool
		src, dst, rows int
	}{
		{"f16 normal overlap", gguf.TypeF16, compute.RopeNormal, 32, false, 20, 7, 70},
		{"f16 neox partial freqs", gguf.TypeF16, compute.RopeNeox, 16, true, 50, 3, 40},
		{"f32 neox overlap", gguf.TypeF32, compute.RopeNeox, 32, false, 9, 8, 80},
		{"f32 normal freqs partial", gguf.TypeF32, compute.RopeNormal, 24, true, 40, 10, 30},
	}
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			be := gpu.New(device(t))
			defer be.Close()
			if err := be.SetKVType(tc.kv); err != nil {
				t.Fatal(err)
			}
			k := compute.NewCache("cache_k", dim, length, heads)
			v := compute.NewCache("cache_v", dim, length, heads)
			for _, c := range []*compute.Tensor{k, v} {
				if err := be.AllocCache(c); err != nil {
					t.Fatal(err)
				}
			}
			var fw *compute.Tensor
			var f []float32
			if tc.freqs {
				f, fw = computetest.RopeFreqs(t, be, rng, tc.nrot)
			}
			n := dim * length * heads
			kIn, vIn := make([]float64, n), make([]float64, n)
			for i := range n {
				kIn[i], vIn[i] = 3*rng.NormFloat64(), rng.NormFloat64()
			}
			kb, vb := encode(kIn, tc.kv), encode(vIn, tc.kv)
			kIn, vIn = decode(kb, tc.kv), decode(vb, tc.kv) // what the cache holds
			for c, b := range map[*compute.Tensor][]byte{k: kb, v: vb} {
				if err := device(t).WriteBuffer(gpu.CacheBuffer(be, c), 0, b); err != nil {
					t.Fatal(err)
				}
			}
			p := compute.RopeParams{Mode: tc.mode, NHeads: heads, HeadDim: dim, NRot: tc.nrot, Base: 10000, Scale: 0.7}
			if err := be.ShiftCache(k, tc.src, tc.dst, tc.rows, &p, fw); err != nil {
				t.Fatal(err)
			}
			if err := be.ShiftCache(v, tc.src, tc.dst, tc.rows, nil, nil); err != nil {
				t.Fatal(err)
			}
			read := func(c *compute.Tensor, size int) []float64 {
				b, err := device(t).ReadBuffer(ctx, gpu.CacheBuffer(be, c), 0, uint64(size))
				if err != nil {
					t.Fatal(err)
				}
				return decode(b, tc.kv)
			}
			kOut, vOut := read(k, len(kb)), read(v, len(vb))
			ulp := 1.0 / (1 << 23)
			if tc.kv == gguf.TypeF16 {
				ulp = 1.0 / (1 << 10)
			}
			d := tc.src - tc.dst
			var worst float64
			for h := range heads {
				for r := range length {
					off := (h*length + r) * dim
					if r < tc.dst || r >= tc.dst+tc.rows {
						for i := range dim {
							if kOut[off+i] != kIn[off+i] || vOut[off+i] != vIn[off+i] {
								t.Fatalf("head %d row %d outside the move changed", h, r)
							}
						}
						continue
					}
					from := (h*length + r + d) * dim
					want := computetest.Rope64(kIn[from:from+dim], p, f, -d)
					for i := range dim {
						// One rounding to the cache type, plus f32 arithmetic.
						if e := math.Abs(kOut[off+i] - want[i]); e > (math.Abs(want[i])+1)*ulp*1.01+1e-5 {
							t.Fatalf("head %d row %d dim %d: key %g, float64 %g", h, r, i, kOut[off+i], want[i])
						} else {
							worst = max(worst, e)
						}
						if vOut[off+i] != vIn[from+i] {
							t.Fatalf("head %d row %d dim %d: value %g not moved from %g", h, r, i, vOut[off+i], vIn[from+i])
						}
					}
				}
			}
			t.Logf("worst key error %.3g", worst)
		})
	}
}

func encode(x []float64, kv gguf.GGMLType) []byte {
	if kv == gguf.TypeF16 {
		b := make([]byte, 2*len(x))
		for i, v := range x {
			binary.LittleEndian.PutUint16(b[2*i:], gguf.F32ToF16(float32(v)))
		}
		return b
	}
	b := make([]byte, 4*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(v)))
	}
	return b
}

func decode(b []byte, kv gguf.GGMLType) []float64 {
	if kv == gguf.TypeF16 {
		out := make([]float64, len(b)/2)
		for i := range out {
			out[i] = float64(gguf.F16ToF32(binary.LittleEndian.Uint16(b[2*i:])))
		}
		return out
	}
	out := make([]float64, len(b)/4)
	for i := range out {
		out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
	}
	return out
}

// TestEngineShiftMatchesCPU: an engine on the GPU backend shifted as
// llama.cpp's context shift (keep 5, discard 17 of 39) gives the CPU
// backend's logits after the shift, as close as the two backends are on
// an unshifted context, while a recomputed context is far from both.
func TestEngineShiftMatchesCPU(t *testing.T) {
	ids := []int32{1}
	for j := range 39 {
		ids = append(ids, int32(300+(j*997)%3500))
	}
	const keep, discard = 5, 17
	compact := append(append([]int32(nil), ids[:keep]...), ids[keep+discard:]...)
	run := func(nb enginetest.NewBackend) (shifted, recomputed []float32) {
		e, _ := enginetest.Load(t, "tiny-llama-q8_0", nb, engine.Options{NCtx: 64, NUbatch: 16})
		ctx := context.Background()
		if _, err := e.Eval(ctx, ids[:len(ids)-1], engine.LogitsNone); err != nil {
			t.Fatal(err)
		}
		if err := e.Shift(keep, discard); err != nil {
			t.Fatal(err)
		}
		rows, err := e.Eval(ctx, ids[len(ids)-1:], engine.LogitsLast)
		if err != nil {
			t.Fatal(err)
		}
		e.Reset()
		base, err := e.Eval(ctx, compact, engine.LogitsLast)
		if err != nil {
			t.Fatal(err)
		}
		return rows[0], base[0]
	}
	gs, gr := run(newBackend)
	cs, cr := run(nil)
	diff := func(a, b []float32) float64 {
		var d float64
		for i := range a {
			d = max(d, math.Abs(float64(a[i]-b[i])))
		}
		return d
	}
	dShift, dBase, dSem := diff(gs, cs), diff(gr, cr), diff(cs, cr)
	t.Logf("max |Δlogit| GPU vs CPU after the shift %.4g, recomputed %.4g; shifted vs recomputed %.4g", dShift, dBase, dSem)
	if dShift > 2*dBase+0.02 || dSem < 5*dShift {
		t.Fatalf("GPU shift %.4g from the CPU's (backends' noise %.4g, shift's own effect %.4g)", dShift, dBase, dSem)
	}
}

// TestSessionSaveRestoreGPU: on the GPU backend (f16 caches), save →
// restore into a fresh engine → continue gives the greedy tokens of going
// on without saving.
func TestSessionSaveRestoreGPU(t *testing.T) {
	opts := engine.Options{NCtx: 128, NUbatch: 16}
	gen := func(s *engine.Session, prompt []int32, n int) []int32 {
		res, err := s.Generate(context.Background(), engine.GenerateRequest{Prompt: prompt, Append: true, MaxTokens: n})
		if err != nil {
			t.Fatal(err)
		}
		return res.Tokens
	}
	session := func() *engine.Session {
		e, _ := enginetest.Load(t, "tiny-llama-q8_0", newBackend, opts)
		s, err := engine.NewSession(e, engine.SessionOptions{EOG: []int32{}})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a := session()
	first := gen(a, []int32{1, 450, 1996, 354, 1701, 432, 1204, 975, 278}, 20)
	var buf bytes.Buffer
	if err := a.Save(&buf, nil); err != nil {
		t.Fatal(err)
	}
	next := []int32{first[len(first)-1], 13, 29, 300}
	want := gen(a, next, 16)
	b := session()
	if _, err := b.Restore(&buf); err != nil {
		t.Fatal(err)
	}
	if got := gen(b, next, 16); !slices.Equal(got, want) {
		t.Fatalf("after restore %v, without saving %v", got, want)
	}
}

// TestSessionShiftGPU: a session with context shift on the GPU (greedy:
// the pipelined argmax path, each segment ending one step submitted in
// vain) gives the tokens of llama.cpp's generation loop written out with
// single evaluations and Engine.Shift on the same backend.
func TestSessionShiftGPU(t *testing.T) {
	const nctx, nkeep, n = 32, 5, 60
	e, _ := enginetest.Load(t, "tiny-llama-q8_0", newBackend, engine.Options{NCtx: nctx, NUbatch: 16})
	prompt := []int32{1, 450, 1996, 3354, 1701, 432, 1204, 975, 278, 2366, 1203, 29}
	ctx := context.Background()
	want := enginetest.ShiftLoop(t, e, prompt, nctx, nkeep, n)
	s, err := engine.NewSession(e, engine.SessionOptions{ContextShift: true, NKeep: nkeep, EOG: []int32{}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Generate(ctx, engine.GenerateRequest{Prompt: prompt, MaxTokens: n})
	if err != nil {
		t.Fatal(err)
	}
	if res.Shifts < 2 || !slices.Equal(res.Tokens, want) {
		t.Fatalf("%d shifts; session %v\nloop %v", res.Shifts, res.Tokens, want)
	}
}
