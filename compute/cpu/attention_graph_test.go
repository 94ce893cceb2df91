package cpu

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/webgguf/webgguf/compute"
)

// attnLayer is one KVWrite+Attention layer of a test graph and what the
// float64 reference needs of it.
type attnLayer struct {
	p          compute.AttnParams
	kc, vc     *compute.Tensor
	tq, tk, tv []float32 // input tables: rows by token
	out        *compute.Tensor
	slots      int
	ring       bool
}

// addAttnLayer adds q, k, v inputs, a KVWrite into caches of slots
// positions (rings if ring) and an Attention node with p.
func (n *testNet) addAttnLayer(p compute.AttnParams, slots int, ring bool, qSigma float64) *attnLayer {
	l := &attnLayer{p: p, slots: slots, ring: ring}
	kw := p.NHeadKV * p.HeadDim
	var q, k, v *compute.Tensor
	q, l.tq = n.input(p.NHead*p.HeadDim, 0, qSigma)
	k, l.tk = n.input(kw, 0, 1)
	v, l.tv = n.input(kw, 0, 1)
	l.kc, l.vc = n.cache(p.HeadDim, slots, p.NHeadKV, ring), n.cache(p.HeadDim, slots, p.NHeadKV, ring)
	n.g.KVWrite(k, v, l.kc, l.vc, p)
	l.out = n.g.Attention(q, l.kc, l.vc, p)
	return l
}

// want is the float64 attention of the query of token tok at position
// pos in a step whose last position is last, over the keys and values of
// the tokens hist[j] written at positions j: the positions 0..pos
// (0..last if NonCausal), from pos−Window+1 on if Window > 0, scores
// q·k·Scale capped to Softcap·tanh(s/Softcap) if Softcap > 0.
func (l *attnLayer) want(dst []float64, tok int32, pos, last int, hist []int32) {
	a := l.p
	hd, kw := a.HeadDim, a.NHeadKV*a.HeadDim
	lo, hi := 0, pos
	if a.NonCausal {
		hi = last
	}
	if a.Window > 0 {
		lo = max(0, pos-a.Window+1)
	}
	for h := range a.NHead {
		g := h / (a.NHead / a.NHeadKV)
		q := l.tq[(int(tok)*a.NHead+h)*hd:][:hd]
		s := make([]float64, hi+1-lo)
		mx := math.Inf(-1)
		for j := lo; j <= hi; j++ {
			k := l.tk[int(hist[j])*kw+g*hd:][:hd]
			var d float64
			for i := range hd {
				d += float64(q[i]) * float64(k[i])
			}
			d *= float64(a.Scale)
			if c := float64(a.Softcap); c > 0 {
				d = c * math.Tanh(d/c)
			}
			s[j-lo] = d
			mx = math.Max(mx, d)
		}
		var sum float64
		for j := range s {
			s[j] = math.Exp(s[j] - mx)
			sum += s[j]
		}
		o := dst[h*hd : (h+1)*hd]
		clear(o)
		for j := lo; j <= hi; j++ {
			v := l.tv[int(hist[j])*kw+g*hd:][:hd]
			for i := range hd {
				o[i] += s[j-lo] / sum * float64(v[i])
			}
		}
	}
}

// attnStep is one step of an attention test: n tokens at pos0.
type attnStep struct{ pos0, n int }

// randomSteps covers positions 0..end-1 with steps of 1..b tokens.
func (n *testNet) randomSteps(b, end int) []attnStep {
	var s []attnStep
	for pos := 0; pos < end; {
		m := min(1+n.rng.IntN(b), end-pos)
		s = append(s, attnStep{pos, m})
		pos += m
	}
	return s
}

// checkAttnSteps runs the steps, each with fresh random tokens, and
// compares every output row with the sum of the layers' float64
// attention. Values are O(1) (V rows N(0,1), outputs convex combinations
// of them); an f32 score over ≤ 32 products is off by ~1e-6 relative at
// most (scores up to ~10 with the larger queries), which moves the
// softmax weights by about as much, tanhf adds 4 roundings of the cap,
// and the f32 accumulation over ≤ 64 positions stays below 1e-6: 1e-5
// per layer leaves a margin of several times.
func (n *testNet) checkAttnSteps(p *program, layers []*attnLayer, steps []attnStep) {
	n.t.Helper()
	a := layers[0].p
	width := a.NHead * a.HeadDim
	var hist []int32
	want, tmp := make([]float64, width), make([]float64, width)
	for si, st := range steps {
		tokens := make([]int32, st.n)
		for i := range tokens {
			tokens[i] = int32(n.rng.IntN(n.vocab))
		}
		// The step's tokens are written at pos0.. before attention
		// reads them (and overwrite what a rerun finds there).
		hist = append(hist[:min(len(hist), st.pos0)], tokens...)
		out := n.run(p, st.pos0, tokens)
		last := st.pos0 + st.n - 1
		for i, tok := range tokens {
			clear(want)
			for _, l := range layers {
				l.want(tmp, tok, st.pos0+i, last, hist)
				for d := range want {
					want[d] += tmp[d]
				}
			}
			for d := range want {
				got := float64(out[i*p.nVocab+d])
				if diff := math.Abs(got - want[d]); diff > 1e-5*float64(len(layers)) {
					n.t.Fatalf("step %d (pos0 %d, %d tokens), row %d, element %d: got %g, want %g (|Δ| %g)", si, st.pos0, st.n, i, d, got, want[d], diff)
				}
			}
		}
	}
}

// TestAttentionFeatures runs KVWrite+Attention graphs step by step on
// the CPU backend against float64: plain causal GQA, a sliding window
// over an ordinary cache and over ring caches (the positions wrap around
// the ring several times, in steps of random sizes that straddle the
// wrap), soft-capped scores, and non-causal steps (one rerun at position
// 0 with fewer tokens, so rows written by the earlier, longer step lie
// past the batch and must not be read). GQA groups of 1, 2, 3 and 4 query
// heads per KV head cover attnHead2 (pairs) and attnHead (the odd head).
func TestAttentionFeatures(t *testing.T) {
	for i, tc := range []struct {
		name                string
		nHead, nKV, hd, b   int
		window              int
		softcap             float32
		nonCausal, ring     bool
		slots, threads, end int
		qSigma              float64
		steps               []attnStep // nil: random steps to end
	}{
		{name: "causal_gqa3", nHead: 6, nKV: 2, hd: 20, b: 4, slots: 48, threads: 2, end: 40, qSigma: 1},
		{name: "window", nHead: 4, nKV: 1, hd: 16, b: 4, window: 5, slots: 48, threads: 1, end: 45, qSigma: 1},
		{name: "window_ring", nHead: 6, nKV: 2, hd: 16, b: 4, window: 5, ring: true, slots: 8, threads: 2, end: 70, qSigma: 1},
		{name: "window_ring_softcap", nHead: 2, nKV: 2, hd: 24, b: 3, window: 7, softcap: 2, ring: true, slots: 10, threads: 1, end: 45, qSigma: 2},
		{name: "window_ring_b1", nHead: 4, nKV: 2, hd: 16, b: 1, window: 3, ring: true, slots: 3, threads: 1, end: 20, qSigma: 1},
		{name: "softcap", nHead: 4, nKV: 2, hd: 16, b: 4, softcap: 1.5, slots: 40, threads: 2, end: 30, qSigma: 2},
		{name: "noncausal", nHead: 4, nKV: 2, hd: 16, b: 6, nonCausal: true, slots: 32, threads: 2,
			steps: []attnStep{{0, 6}, {0, 3}, {3, 2}, {5, 6}}, qSigma: 1},
		{name: "noncausal_window_softcap", nHead: 3, nKV: 1, hd: 16, b: 6, window: 3, softcap: 3, nonCausal: true, slots: 32, threads: 1,
			steps: []attnStep{{0, 6}, {6, 5}, {11, 1}}, qSigma: 1.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := newTestNet(t, uint64(300+i), tc.threads, tc.b, tc.nHead*tc.hd)
			a := compute.AttnParams{NHead: tc.nHead, NHeadKV: tc.nKV, HeadDim: tc.hd, Scale: float32(1 / math.Sqrt(float64(tc.hd))),
				Window: tc.window, Softcap: tc.softcap, NonCausal: tc.nonCausal}
			l := n.addAttnLayer(a, tc.slots, tc.ring, tc.qSigma)
			p := n.compile(l.out)
			steps := tc.steps
			if steps == nil {
				steps = n.randomSteps(tc.b, tc.end)
			}
			n.checkAttnSteps(p, []*attnLayer{l}, steps)
		})
	}
}

// TestAttentionMixedCaches compiles a Gemma 3 style graph: a sliding
// window layer on a ring and a global layer on an ordinary cache, of
// different lengths. The context bound is the ordinary cache's length;
// both layers stay exact while the ring wraps. Of ordinary caches of
// different lengths the longest bounds the context. A graph on rings alone is
// bounded by nothing but overflow, and K and V caches of different
// lengths do not compile.
func TestAttentionMixedCaches(t *testing.T) {
	const b, nCtx, window = 3, 40, 4
	n := newTestNet(t, 400, 2, b, 64)
	a := compute.AttnParams{NHead: 4, NHeadKV: 2, HeadDim: 16, Scale: 0.25}
	global := n.addAttnLayer(a, nCtx, false, 1)
	a.Window = window
	local := n.addAttnLayer(a, window+b-1, true, 1)
	p := n.compile(n.g.Add(global.out, local.out))
	if p.nCtx != nCtx {
		t.Errorf("context bound %d, want the ordinary cache's %d", p.nCtx, nCtx)
	}
	n.checkAttnSteps(p, []*attnLayer{global, local}, n.randomSteps(b, nCtx))
	out := make([]float32, 64)
	if err := p.Run(context.Background(), compute.Step{Pos0: nCtx - 1, Tokens: []int32{1, 2}}, out); !errors.Is(err, compute.ErrBadStep) {
		t.Errorf("step past the context: %v, want ErrBadStep", err)
	}

	// Two ordinary caches of 40 and 16 positions: the bound is 40, and
	// the short one holds the last 16 positions, which one-token steps
	// see as a window of 16.
	n = newTestNet(t, 403, 2, 1, 64)
	a.Window = 0
	long, short := n.addAttnLayer(a, nCtx, false, 1), n.addAttnLayer(a, 16, false, 1)
	p = n.compile(n.g.Add(long.out, short.out))
	if p.nCtx != nCtx {
		t.Errorf("ordinary caches of %d and 16: context bound %d", nCtx, p.nCtx)
	}
	short.p.Window = 16
	n.checkAttnSteps(p, []*attnLayer{long, short}, n.randomSteps(1, nCtx))

	a.Window = window
	n = newTestNet(t, 401, 1, b, 64)
	ring := n.addAttnLayer(a, window+b-1, true, 1)
	p = n.compile(ring.out)
	if p.nCtx != 1<<30 {
		t.Errorf("rings only: context bound %d, want 1<<30", p.nCtx)
	}
	if err := p.Run(context.Background(), compute.Step{Pos0: 1 << 20, Tokens: []int32{1, 2, 3}, OutRows: []int32{2}}, out); err != nil {
		t.Errorf("rings only, step at 1<<20: %v", err)
	}

	n = newTestNet(t, 402, 1, 1, 32)
	a.Window = 0
	k, _ := n.input(32, 0, 1)
	kc, vc := n.cache(16, 8, 2, false), n.cache(16, 9, 2, false)
	n.g.KVWrite(k, k, kc, vc, a)
	if err := n.g.SetLogits(n.g.SelectRows(n.g.Attention(k, kc, kc, compute.AttnParams{NHead: 2, NHeadKV: 2, HeadDim: 16, Scale: 0.25}))); err != nil {
		t.Fatal(err)
	}
	if _, err := n.be.Compile(n.g); err == nil {
		t.Error("K and V caches of 8 and 9 positions compiled")
	}
}

// TestAttentionWindowVisitsOnlyWindow: at depth 4096 with a window of 64,
// the kernel must touch only the window's 64 keys and values (so that
// the cost is the window's, not the depth's): every other cache row is
// NaN, which would poison the output if a score or a value were read.
func TestAttentionWindowVisitsOnlyWindow(t *testing.T) {
	const nCtx, window, hd, pos = 4096, 64, 32, 4095
	a := compute.AttnParams{NHead: 4, NHeadKV: 2, HeadDim: hd, Scale: 0.2, Window: window}
	n := newTestNet(t, 500, 1, 1, 1)
	kc, vc := n.randn(a.NHeadKV*nCtx*hd, 0, 1), n.randn(a.NHeadKV*nCtx*hd, 0, 1)
	for g := range a.NHeadKV {
		for j := range pos - window + 1 {
			for _, c := range [][]float32{kc, vc} {
				for d := range hd {
					c[(g*nCtx+j)*hd+d] = float32(math.NaN())
				}
			}
		}
	}
	q, dst := n.randn(a.NHead*hd, 0, 1), make([]float32, a.NHead*hd)
	p := &program{b: &Backend{threads: 1}, scores: [][]float32{make([]float32, 2*nCtx)}}
	p.attention(dst, q, kc, vc, nCtx, a, pos, 1, pos)
	for d, v := range dst {
		if math.IsNaN(float64(v)) {
			t.Fatalf("element %d is NaN: a key or value outside the window was read", d)
		}
	}
}
