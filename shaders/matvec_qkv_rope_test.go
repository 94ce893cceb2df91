package shaders

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/shaders/internal/ref"
	"github.com/webgguf/webgguf/webgpu"
)

// matvec_qkv with RoPE and the KV write fused in (Key.HeadDim) against the
// float64 chain matvec (+bias, fused norm) → RoPE → cache: y_q rotated, y_k
// and y_v unrotated, the caches' slot Pos0 of every KV head holding k' and
// v, every other slot still NaN poison. A rotated value's tolerance is its
// two inputs' matvec tolerances plus RoPE's angle error (2e-4·(|a|+|b|+2),
// as TestRoPEKV). With an f16 cache (two elements a u32 word, each word
// written whole by one thread) the cache is judged against the reference
// rounded to f16, as llama.cpp stores it, within that tolerance plus one f16
// step; the poison there is an f16 NaN in both halves of every word.
func TestMatvecQKVRope(t *testing.T) {
	r := newRand(t)
	for f16, d := range gpus(t) {
		for _, c := range []qkvRopeCase{
			{gguf.TypeQ4_0, gguf.TypeQ4_0, gguf.TypeQ4_0, 64, 64, 0, 0, false, true, true, true, false, 4, 2, 37, 40, 500000, 1},
			{gguf.TypeQ8_0, gguf.TypeQ8_0, gguf.TypeQ8_0, 64, 64, 16, 2, true, false, false, true, false, 2, 1, 0, 3, 10000, 1},
			{gguf.TypeQ4_K, gguf.TypeQ4_K, gguf.TypeQ6_K, 48, 32, 8, 2, true, true, true, false, false, 3, 1, 500, 510, 10000, 0.5},
			{gguf.TypeF16, gguf.TypeF32, gguf.TypeQ5_0, 40, 24, 16, 8, false, false, false, false, false, 2, 2, 9, 12, 1000000, 1},
			// NEOX (qwen2): biases, packed, the partner j + NRot/2 rows away; then partial rotary with RPT 8.
			{gguf.TypeQ4_0, gguf.TypeQ4_0, gguf.TypeQ8_0, 64, 64, 0, 0, true, true, false, true, true, 4, 2, 21, 24, 1000000, 1},
			{gguf.TypeQ5_1, gguf.TypeQ8_0, gguf.TypeF16, 48, 32, 16, 8, true, false, true, false, true, 3, 1, 300, 310, 10000, 0.5},
			// NEOX with RPT 2 in 4-row workgroups: an f16 word's four rows span two groups.
			{gguf.TypeQ8_0, gguf.TypeQ8_0, gguf.TypeQ8_0, 64, 64, 4, 2, true, true, true, false, true, 2, 2, 5, 7, 10000, 1},
			// The plain path (all f16, bf16 or f32): F16 Llama's shape, then NEOX with partial rotary.
			{gguf.TypeF16, gguf.TypeF16, gguf.TypeF16, 64, 64, 8, 2, false, true, false, false, false, 4, 2, 37, 40, 500000, 1},
			{gguf.TypeBF16, gguf.TypeBF16, gguf.TypeBF16, 48, 32, 16, 8, true, true, true, false, true, 3, 1, 300, 310, 10000, 0.5},
			{gguf.TypeF32, gguf.TypeF32, gguf.TypeF32, 64, 64, 4, 2, false, true, false, false, true, 2, 2, 5, 7, 10000, 1},
		} {
			for _, kv := range []gguf.GGMLType{gguf.TypeF32, gguf.TypeF16} {
				testMatvecQKVRope(t, r, d, f16, kv, c)
			}
		}
	}
}

type qkvRopeCase struct {
	q, k, v          gguf.GGMLType
	D, nrot, rows    int
	rpt              int
	bias, norm, ff   bool
	packed, neox     bool
	heads, kvHeads   int
	pos0, ctx        int
	freqBase, fScale float64
}

func testMatvecQKVRope(t *testing.T, r *rand.Rand, d *webgpu.Device, f16 bool, kv gguf.GGMLType, c qkvRopeCase) {
	t.Helper()
	const eps = 1e-6
	K := 512
	Nq, Nk, Nv := c.heads*c.D, c.kvHeads*c.D, c.kvHeads*c.D
	key := Key{Op: OpMatvecQKV, Weight: c.q, WeightK: c.k, WeightV: c.v, Rows: c.rows, RPT: c.rpt, F16: f16,
		Bias: c.bias, Norm: c.norm, Packed: c.packed, HeadDim: c.D, FreqFactors: c.ff, Neox: c.neox, KV: kv}
	x := randVec(r, K, 0.5, 4)
	nw := randVec(r, K, 0.2, 2)
	xin := ref.Widen(x)
	if c.norm {
		xin = normRef(x, nw, eps)
	}
	types := []gguf.GGMLType{c.q, c.k, c.v}
	ns := []int{Nq, Nk, Nv}
	var raws, ws [][]byte
	var biases [][]float32
	for i, typ := range types {
		raws = append(raws, randWeights(t, r, typ, ns[i], K))
		w := raws[i]
		if c.packed && Packable(typ, K) {
			w = gpuPack(t, f16, typ, ns[i], K, w)
		}
		ws = append(ws, w)
		biases = append(biases, randVec(r, ns[i], 0.1, 2))
	}
	cacheLen := c.kvHeads * c.ctx * c.D
	bufs := [][]byte{ws[0], f32Bytes(x), poison(4 * Nq), ws[1], poison(4 * Nk), ws[2], poison(4 * Nv)}
	if c.bias {
		bufs = append(bufs, f32Bytes(biases[0]), f32Bytes(biases[1]), f32Bytes(biases[2]))
	}
	if c.norm {
		bufs = append(bufs, f32Bytes(nw))
	}
	if kv == gguf.TypeF16 {
		bufs = append(bufs, poison16(cacheLen), poison16(cacheLen))
	} else {
		bufs = append(bufs, poison(4*cacheLen), poison(4*cacheLen))
	}
	var ff []float64
	if c.ff {
		var f []float32
		f, ff = randFreqFactors(r, c.nrot/2)
		bufs = append(bufs, f32Bytes(f))
	}
	p := MatvecQKVParams{K: uint32(K), Nq: uint32(Nq), Nk: uint32(Nk), Nv: uint32(Nv), Eps: eps,
		NRot: uint32(c.nrot), Pos0: uint32(c.pos0), Ctx: uint32(c.ctx), FreqBase: float32(c.freqBase), FreqScale: float32(c.fScale)}
	out := launch(t, d, key, p, Shape{N: Nq + Nk + Nv}, bufs...)
	var want, tol [3][]float64
	for i := range types {
		wd, err := ref.Dequant(types[i], raws[i], ns[i]*K)
		if err != nil {
			t.Fatal(err)
		}
		w, mag := ref.Matvec(wd, xin, ns[i], K)
		if c.bias {
			for j := range w {
				w[j] += float64(biases[i][j])
				mag[j]++
			}
		}
		want[i], tol[i] = w, relTol(mag, matvecRel, 1e-6)
	}
	// rot rotates matrix i's rows as heads of D and widens the tolerance.
	rot := func(i, heads int) ([]float64, []float64) {
		y := ref.RoPE(want[i], 1, heads, c.D, c.nrot, c.pos0, float64(float32(c.freqBase)), float64(float32(c.fScale)), ff, c.neox)
		tl := append([]float64(nil), tol[i]...)
		for h := 0; h < heads; h++ {
			for e := 0; e < c.nrot; e++ {
				pe := e ^ 1
				if c.neox {
					pe = (e + c.nrot/2) % c.nrot
				}
				a, b := h*c.D+e, h*c.D+pe
				tl[a] = tol[i][a] + tol[i][b] + 2e-4*(math.Abs(want[i][a])+math.Abs(want[i][b])+2)
			}
		}
		return y, tl
	}
	wq, tq := rot(0, c.heads)
	wk, tk := rot(1, c.kvHeads)
	checkClose(t, key.String()+" y_q", bytesF32(out[2]), wq, tq)
	checkClose(t, key.String()+" y_k", bytesF32(out[4]), want[1], tol[1])
	checkClose(t, key.String()+" y_v", bytesF32(out[6]), want[2], tol[2])
	ci := 7
	if c.bias {
		ci += 3
	}
	if c.norm {
		ci++
	}
	for j, cw := range []struct {
		want, tol []float64
	}{{wk, tk}, {want[2], tol[2]}} {
		got := cacheF32(kv, out[ci+j])
		slot := make([]float32, Nk)
		for h := 0; h < c.kvHeads; h++ {
			for pos := 0; pos < c.ctx; pos++ {
				for e := 0; e < c.D; e++ {
					g := got[(h*c.ctx+pos)*c.D+e]
					if pos == c.pos0 {
						slot[h*c.D+e] = g
					} else if !math.IsNaN(float64(g)) {
						t.Fatalf("%v cache %d: head %d slot %d elem %d = %g, want the NaN poison", key, j, h, pos, e, g)
					}
				}
			}
		}
		if kv == gguf.TypeF16 {
			cw.want, cw.tol = f16Ref(cw.want, cw.tol)
		}
		checkClose(t, name(key.String(), " cache ", j), slot, cw.want, cw.tol)
	}
}

// The fused RoPE refuses what its epilogue cannot do, with typed key errors.
func TestMatvecQKVRopeRefused(t *testing.T) {
	base := Key{Op: OpMatvecQKV, Weight: gguf.TypeQ8_0, WeightK: gguf.TypeQ8_0, WeightV: gguf.TypeQ8_0, HeadDim: 64}
	for _, c := range []struct {
		field string
		edit  func(*Key)
	}{
		{"KV", func(k *Key) { k.KV = gguf.TypeQ8_0 }},
		{"Rows", func(k *Key) { k.KV, k.Neox, k.WG, k.Rows, k.RPT = gguf.TypeF16, true, 64, 2, 2 }},
		{"HeadDim", func(k *Key) { k.KV, k.Neox, k.HeadDim = gguf.TypeF16, true, 42 }},
		{"RPT", func(k *Key) { k.WG, k.Rows, k.RPT = 64, 2, 1 }},
		{"HeadDim", func(k *Key) { k.HeadDim = 63 }},
	} {
		k := base
		c.edit(&k)
		_, err := Build(k)
		var ke *KeyError
		if !errors.As(err, &ke) || ke.Field != c.field {
			t.Errorf("Build(%v) = %v, want a KeyError on %s", k, err, c.field)
		}
	}
}

// poison16 is n f16 NaNs (0x7e00), two a word.
func poison16(n int) []byte {
	b := make([]byte, (2*n+3)/4*4)
	for i := 0; i+1 < len(b); i += 2 {
		b[i], b[i+1] = 0x00, 0x7e
	}
	return b
}

// cacheF32 reads a cache of type kv (f32, or f16 two a word) as f32.
func cacheF32(kv gguf.GGMLType, b []byte) []float32 {
	if kv != gguf.TypeF16 {
		return bytesF32(b)
	}
	f := make([]float32, len(b)/2)
	for i := range f {
		f[i] = gguf.F16ToF32(uint16(b[2*i]) | uint16(b[2*i+1])<<8)
	}
	return f
}

// f16Ref rounds the reference to f16 (llama.cpp's cache) and widens the
// tolerance by one f16 step at the value's magnitude: the kernel rounds a
// value within tol of the exact one, which may land one step away.
func f16Ref(want, tol []float64) ([]float64, []float64) {
	w, tl := make([]float64, len(want)), make([]float64, len(tol))
	for i, x := range want {
		w[i] = float64(gguf.F16ToF32(gguf.F32ToF16(float32(x))))
		m := math.Abs(x) + tol[i]
		step := math.Max(math.Ldexp(1, math.Ilogb(m)-10), math.Ldexp(1, -24))
		tl[i] = tol[i] + step
	}
	return w, tl
}
