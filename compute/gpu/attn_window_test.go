package gpu_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/gguf"
)

// How a windowCase's layers make q, k and v: straight from embedding
// tables (the KVWrite op alone), rotated (rope_kv), or projected and
// rotated (the QKV matvec with RoPE and the KV write in its epilogue at
// one row; the QKV matmul and rope_kv at several).
const (
	srcPlain = iota
	srcRope
	srcQKV
)

// windowCase is a graph of two attention layers whose outputs are added:
// layer 0 with the case's window, soft-cap, causality and (ring > 0) a
// ring cache of that many rows, layer 1 full causal attention over an
// ordinary cache of nCtx rows, each with its own RoPE base. The graph's
// logits are the sum itself (an identity lm head), so every output is
// checked against a float64 reference.
type windowCase struct {
	name            string
	nHead, nKV, hd  int
	win             int
	cap             float32
	nonCausal       bool
	ring            int
	nCtx, b         int
	kv              gguf.GGMLType
	src             int
	steps           []int
	decode          gpu.DecodeAttention // zero: the default
	tiled, neox     bool                // the tiled prefill kernel; NEOX RoPE
	nEmbd, nVocab   int
	layerTheta      [2]float64
	rng             *rand.Rand
	emb, wq, wk, wv [2][]float32 // per layer: tables [V][row] or matrices [row][nEmbd]
}

func f32Weight(name string, v []float32, ne0, ne1 int) (*compute.Tensor, []byte) {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return compute.NewWeight(name, gguf.TypeF32, ne0, ne1), b
}

func randF32(r *rand.Rand, n int, lo, hi float64) []float32 {
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

// qkv is layer l's q, k and v rows (float64, unrotated) for token tok.
func (c *windowCase) qkv(l int, tok int32) (q, k, v []float64) {
	qw, kw := c.nHead*c.hd, c.nKV*c.hd
	if c.src != srcQKV {
		row := func(t []float32, n int) []float64 {
			out := make([]float64, n)
			for i := range out {
				out[i] = float64(t[int(tok)*n+i])
			}
			return out
		}
		return row(c.wq[l], qw), row(c.wk[l], kw), row(c.wv[l], kw)
	}
	x := c.emb[0][int(tok)*c.nEmbd : (int(tok)+1)*c.nEmbd]
	mv := func(w []float32, n int) []float64 {
		out := make([]float64, n)
		for r := range out {
			for i, xv := range x {
				out[r] += float64(w[r*c.nEmbd+i]) * float64(xv)
			}
		}
		return out
	}
	return mv(c.wq[l], qw), mv(c.wk[l], kw), mv(c.wv[l], kw)
}

// rope rotates every head of x at position pos (all dims rotated).
func (c *windowCase) rope(x []float64, pos int, theta float64) {
	if c.src == srcPlain {
		return
	}
	hd := c.hd
	for h := 0; h < len(x)/hd; h++ {
		y := x[h*hd : (h+1)*hd]
		for j := 0; j < hd/2; j++ {
			a := float64(pos) * math.Pow(theta, -2*float64(j)/float64(hd))
			cs, sn := math.Cos(a), math.Sin(a)
			i0, i1 := 2*j, 2*j+1
			if c.neox {
				i0, i1 = j, j+hd/2
			}
			y[i0], y[i1] = y[i0]*cs-y[i1]*sn, y[i0]*sn+y[i1]*cs
		}
	}
}

// cacheRound is what the cache holds of x: x's f32 value, rounded to f16
// for an f16 cache.
func (c *windowCase) cacheRound(x []float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		f := float32(v)
		if c.kv == gguf.TypeF16 {
			f = gguf.F16ToF32(gguf.F32ToF16(f))
		}
		out[i] = float64(f)
	}
	return out
}

func (c *windowCase) run(t *testing.T) {
	r := c.rng
	qw, kw := c.nHead*c.hd, c.nKV*c.hd
	be := gpu.New(device(t))
	defer be.Close()
	if err := be.SetKVType(c.kv); err != nil {
		t.Fatal(err)
	}
	if c.decode != (gpu.DecodeAttention{}) {
		be.SetDecodeAttention(c.decode)
	}
	if c.tiled {
		be.SetPrefillAttention(gpu.PrefillAttention{WG: 128, Keys: 16, OnSoftware: true})
	}
	load := func(w *compute.Tensor, b []byte) {
		if err := be.LoadWeight(w, int64(len(b)), func(fn func(int64, []byte) error) error { return fn(0, b) }); err != nil {
			t.Fatal(err)
		}
	}
	g := compute.NewGraph(c.b, c.b)
	var x *compute.Tensor
	if c.src == srcQKV {
		c.emb[0] = randF32(r, c.nVocab*c.nEmbd, 0.05, 1)
		w, b := f32Weight("emb", c.emb[0], c.nEmbd, c.nVocab)
		load(w, b)
		x = g.GetRows(w)
	}
	var out [2]*compute.Tensor
	for l := range 2 {
		p := compute.AttnParams{NHead: c.nHead, NHeadKV: c.nKV, HeadDim: c.hd, Scale: float32(1 / math.Sqrt(float64(c.hd)))}
		kc, vc := compute.NewCache("k", c.hd, c.nCtx, c.nKV), compute.NewCache("v", c.hd, c.nCtx, c.nKV)
		if l == 0 {
			p.Window, p.Softcap, p.NonCausal = c.win, c.cap, c.nonCausal
			if c.ring > 0 {
				kc, vc = compute.NewRingCache("k_ring", c.hd, c.ring, c.nKV), compute.NewRingCache("v_ring", c.hd, c.ring, c.nKV)
			}
		}
		for _, cc := range []*compute.Tensor{kc, vc} {
			if err := be.AllocCache(cc); err != nil {
				t.Fatal(err)
			}
		}
		var q, k, v *compute.Tensor
		mk := func(name string, rows int) (*compute.Tensor, []float32) {
			if c.src == srcQKV {
				m := randF32(r, rows*c.nEmbd, 0.02, 0.3)
				w, b := f32Weight(name, m, c.nEmbd, rows)
				load(w, b)
				return g.MatMul(w, x, nil), m
			}
			tab := randF32(r, c.nVocab*rows, 0.05, 1.5)
			w, b := f32Weight(name, tab, rows, c.nVocab)
			load(w, b)
			return g.GetRows(w), tab
		}
		q, c.wq[l] = mk(fmt.Sprintf("q%d", l), qw)
		k, c.wk[l] = mk(fmt.Sprintf("k%d", l), kw)
		v, c.wv[l] = mk(fmt.Sprintf("v%d", l), kw)
		if c.src != srcPlain {
			mode := compute.RopeNormal
			if c.neox {
				mode = compute.RopeNeox
			}
			q = g.Rope(q, compute.RopeParams{Mode: mode, NHeads: c.nHead, HeadDim: c.hd, NRot: c.hd, Base: float32(c.layerTheta[l]), Scale: 1}, nil)
			k = g.Rope(k, compute.RopeParams{Mode: mode, NHeads: c.nKV, HeadDim: c.hd, NRot: c.hd, Base: float32(c.layerTheta[l]), Scale: 1}, nil)
		}
		g.KVWrite(k, v, kc, vc, p)
		out[l] = g.Attention(q, kc, vc, p)
	}
	id := make([]float32, qw*qw)
	for i := range qw {
		id[i*qw+i] = 1
	}
	iw, ib := f32Weight("identity", id, qw, qw)
	load(iw, ib)
	if err := g.SetLogits(g.MatMul(iw, g.SelectRows(g.Add(out[0], out[1])), nil)); err != nil {
		t.Fatal(err)
	}
	prog, err := be.Compile(g)
	if err != nil {
		t.Fatal(err)
	}
	// The float64 reference's caches: every position's rotated k and v.
	var ks, vs [2][][]float64
	var qs [2][][]float64
	pos := 0
	maxV := 0.0
	for si, n := range c.steps {
		toks := make([]int32, n)
		outRows := make([]int32, n)
		for i := range toks {
			toks[i] = int32(r.IntN(c.nVocab))
			outRows[i] = int32(i)
			for l := range 2 {
				q, k, v := c.qkv(l, toks[i])
				c.rope(q, pos+i, c.layerTheta[l])
				c.rope(k, pos+i, c.layerTheta[l])
				qs[l] = append(qs[l], q)
				ks[l] = append(ks[l], c.cacheRound(k))
				vs[l] = append(vs[l], c.cacheRound(v))
				for _, x := range v {
					maxV = math.Max(maxV, math.Abs(x))
				}
			}
		}
		logits := make([]float32, n*qw)
		if err := prog.Run(context.Background(), compute.Step{Pos0: pos, Tokens: toks, OutRows: outRows}, logits); err != nil {
			t.Fatalf("step %d (pos %d, %d rows): %v", si, pos, n, err)
		}
		last := pos + n - 1
		for i := range n {
			p := pos + i
			want := make([]float64, qw)
			for l := range 2 {
				lo, hi := 0, p
				if l == 0 {
					if c.nonCausal {
						hi = last
					}
					if c.win > 0 {
						lo = max(0, p-c.win+1)
					}
				}
				var capv float32
				if l == 0 {
					capv = c.cap
				}
				for h := range c.nHead {
					hk := h / (c.nHead / c.nKV)
					o := refHead(qs[l][p][h*c.hd:(h+1)*c.hd], ks[l], vs[l], hk, c.hd, lo, hi, 1/math.Sqrt(float64(c.hd)), capv)
					for e, x := range o {
						want[h*c.hd+e] += x
					}
				}
			}
			tol := 2e-4 * maxV
			if c.src != srcPlain {
				tol = 1e-3 * maxV // f32 RoPE angles at positions in the hundreds
			}
			got := logits[i*qw : (i+1)*qw]
			if d, at := diff(got, want); d > tol || math.IsNaN(d) {
				t.Fatalf("step %d, pos %d (row %d of %d): output %d = %.6f, reference %.6f (|Δ| %.2g > %.2g)", si, p, i, n, at, got[at], want[at], d, tol)
			}
		}
		pos += n
	}
}

// refHead is one head's float64 attention over positions lo..hi of the
// reference caches (position-indexed), scores scaled by the f32 scale
// and soft-capped by capv (> 0).
func refHead(q []float64, ks, vs [][]float64, hk, hd, lo, hi int, scale float64, capv float32) []float64 {
	sc := float64(float32(scale))
	s := make([]float64, hi-lo+1)
	mx := math.Inf(-1)
	for t := lo; t <= hi; t++ {
		var d float64
		for i := range hd {
			d += q[i] * ks[t][hk*hd+i]
		}
		d *= sc
		if capv > 0 {
			d = float64(capv) * math.Tanh(d/float64(capv))
		}
		s[t-lo] = d
		mx = math.Max(mx, d)
	}
	var sum float64
	for i := range s {
		s[i] = math.Exp(s[i] - mx)
		sum += s[i]
	}
	out := make([]float64, hd)
	for t := lo; t <= hi; t++ {
		for i := range hd {
			out[i] += s[t-lo] / sum * vs[t][hk*hd+i]
		}
	}
	return out
}

func repeat(n, k int) []int {
	s := make([]int, k)
	for i := range s {
		s[i] = n
	}
	return s
}

// TestWindowSoftcapRingMatchFloat64 runs sliding-window, soft-capped and
// non-causal attention beside a full-attention layer, over ring caches
// whose steps wrap around them several times and ordinary ones, at decode
// (one row: both decode tapes, split + merge with a window) and prefill
// (batches longer than the window; the tiled kernel at head sizes 64, 128
// and 256), head sizes 256 and 64, MQA and GQA,
// f16 and f32 caches, with q, k and v from KVWrite alone, rope_kv and the
// QKV matvec's RoPE epilogue; every output against the float64 reference.
func TestWindowSoftcapRingMatchFloat64(t *testing.T) {
	cases := []windowCase{
		// Decode, one row a step: the one-pass tape up to 8 positions, split +
		// merge (3 splits: nCtx 300) after; the ring of 7 wraps 5 times.
		{name: "decode_qkv_mqa_hd256_ring", nHead: 4, nKV: 1, hd: 256, win: 7, ring: 7, nCtx: 300, b: 1, kv: gguf.TypeF16, src: srcQKV,
			steps: repeat(1, 40), decode: gpu.DecodeAttention{ShortMax: 8, GroupSplit: true}},
		{name: "decode_rope_gqa_hd64_ring_cap", nHead: 6, nKV: 2, hd: 64, win: 9, cap: 1.5, ring: 9, nCtx: 300, b: 1, kv: gguf.TypeF32, src: srcRope,
			steps: repeat(1, 45), decode: gpu.DecodeAttention{ShortMax: 8, Group: true}},
		{name: "decode_qkv_neox_f32_window", nHead: 8, nKV: 2, hd: 64, win: 12, cap: 3, nCtx: 300, b: 1, kv: gguf.TypeF32, src: srcQKV, neox: true,
			steps: repeat(1, 30), decode: gpu.DecodeAttention{ShortMax: 8, GroupSplit: true}},
		// Prefill: batches longer than the window, a ring of W+B-1 = 12.
		{name: "prefill_rope_gqa_hd64_ring", nHead: 4, nKV: 2, hd: 64, win: 5, ring: 12, nCtx: 128, b: 8, kv: gguf.TypeF16, src: srcRope,
			steps: []int{8, 8, 3, 8, 1, 1, 8, 8, 7}},
		{name: "prefill_qkv_mqa_hd256_ring_cap", nHead: 4, nKV: 1, hd: 256, win: 4, cap: 2, ring: 11, nCtx: 128, b: 8, kv: gguf.TypeF16, src: srcQKV,
			steps: []int{8, 8, 8, 1, 1, 5}},
		{name: "prefill_plain_hd128_window_cap_tiled", nHead: 4, nKV: 2, hd: 128, win: 6, cap: 2, nCtx: 128, b: 16, kv: gguf.TypeF32, src: srcPlain,
			steps: []int{16, 16, 5, 1}, tiled: true},
		{name: "prefill_rope_hd64_ring_tiled", nHead: 4, nKV: 2, hd: 64, win: 10, ring: 25, nCtx: 128, b: 16, kv: gguf.TypeF16, src: srcRope,
			steps: []int{16, 16, 16, 3, 16}, tiled: true},
		// Head size 256 on the tiled kernel (split scores, 8 keys a tile,
		// not Keys' 16): MQA over a ring with a window and soft-cap (Gemma
		// 3's sliding layers), a window longer than the batch, f32 cache.
		{name: "prefill_qkv_mqa_hd256_ring_cap_tiled", nHead: 4, nKV: 1, hd: 256, win: 4, cap: 2, ring: 11, nCtx: 128, b: 8, kv: gguf.TypeF16, src: srcQKV,
			steps: []int{8, 8, 8, 1, 1, 5}, tiled: true},
		{name: "prefill_rope_gqa_hd256_window_tiled", nHead: 4, nKV: 2, hd: 256, win: 20, nCtx: 128, b: 16, kv: gguf.TypeF32, src: srcRope,
			steps: []int{16, 7, 16, 3}, tiled: true},
		// Non-causal rows (encoders): every row sees the whole batch.
		{name: "prefill_noncausal_hd64", nHead: 4, nKV: 2, hd: 64, nonCausal: true, nCtx: 64, b: 16, kv: gguf.TypeF16, src: srcPlain,
			steps: []int{13, 16}},
		{name: "prefill_noncausal_window_cap_tiled", nHead: 4, nKV: 4, hd: 64, nonCausal: true, win: 5, cap: 1, nCtx: 64, b: 16, kv: gguf.TypeF32, src: srcPlain,
			steps: []int{16, 9}, tiled: true},
	}
	for ci, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.rng = rand.New(rand.NewPCG(uint64(ci)+500, 7))
			c.nEmbd, c.nVocab = 64, 50
			c.layerTheta = [2]float64{10000, 1e6}
			c.run(t)
		})
	}
}

// TestRingContext: a graph whose windowed layer keeps a ring shorter than
// the context takes positions up to the ordinary caches' length, not the
// ring's, and no further.
func TestRingContext(t *testing.T) {
	be := gpu.New(device(t))
	defer be.Close()
	const hd, nCtx, ring = 16, 40, 6
	g := compute.NewGraph(1, 1)
	emb := compute.NewWeight("emb", gguf.TypeF32, 2*hd, 10)
	w := make([]byte, 4*2*hd*10)
	for i := 0; i < len(w); i += 4 {
		binary.LittleEndian.PutUint32(w[i:], math.Float32bits(0.5))
	}
	if err := be.LoadWeight(emb, int64(len(w)), func(fn func(int64, []byte) error) error { return fn(0, w) }); err != nil {
		t.Fatal(err)
	}
	x := g.GetRows(emb)
	caches := []*compute.Tensor{
		compute.NewRingCache("k0", hd, ring, 2), compute.NewRingCache("v0", hd, ring, 2),
		compute.NewCache("k1", hd, nCtx, 2), compute.NewCache("v1", hd, nCtx, 2),
	}
	for _, c := range caches {
		if err := be.AllocCache(c); err != nil {
			t.Fatal(err)
		}
	}
	p := compute.AttnParams{NHead: 2, NHeadKV: 2, HeadDim: hd, Scale: 0.25, Window: ring}
	g.KVWrite(x, x, caches[0], caches[1], p)
	a := g.Attention(x, caches[0], caches[1], p)
	p.Window = 0
	g.KVWrite(a, a, caches[2], caches[3], p)
	if err := g.SetLogits(g.MatMul(emb, g.SelectRows(g.Attention(a, caches[2], caches[3], p)), nil)); err != nil {
		t.Fatal(err)
	}
	prog, err := be.Compile(g)
	if err != nil {
		t.Fatal(err)
	}
	logits := make([]float32, 10)
	for _, pos := range []int{0, ring, 2*ring + 1, nCtx - 1} {
		if err := prog.Run(context.Background(), compute.Step{Pos0: pos, Tokens: []int32{1}, OutRows: []int32{0}}, logits); err != nil {
			t.Errorf("position %d (ring %d, context %d): %v", pos, ring, nCtx, err)
		}
	}
	if err := prog.Run(context.Background(), compute.Step{Pos0: nCtx, Tokens: []int32{1}, OutRows: []int32{0}}, logits); err == nil {
		t.Errorf("position %d past the context %d: no error", nCtx, nCtx)
	}
}
