package gpu

import (
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
)

// planFusions moves the per-head q and k RMSNorms before RoPE (Qwen3,
// Gemma 3) into the rope_kv group (fusions.ropeNorm, absorbed by the q
// Rope), decode and prefill, normal and NEOX RoPE, whatever the node order
// between the k norm and the q Rope; not when a norm's output has another
// reader, its group is not the head, the two epsilons differ, only one of
// q and k has a norm, or the head is longer than the kernel stages.
// (Whether the fused kernel computes the right values is judged by
// shaders.TestRoPEKVNorm and the qwen3/gemma3 fixtures and shapes.)
func TestPlanRopeNormFusions(t *testing.T) {
	type variant struct {
		name         string
		b, hd        int
		neox         bool
		qGroup       int     // 0: hd
		kEps         float32 // 0: as q's
		noQNorm      bool
		kNormLate    bool // the k norm and Rope after the q Rope
		sharedK      bool // the k norm's output also read by a Scale
		wantRopeKV   bool
		wantRopeNorm bool
	}
	for _, v := range []variant{
		{name: "qwen3 decode", b: 1, hd: 128, wantRopeKV: true, wantRopeNorm: true},
		{name: "gemma3 prefill", b: 4, hd: 256, neox: true, wantRopeKV: true, wantRopeNorm: true},
		{name: "k norm after q rope", b: 1, hd: 64, kNormLate: true, wantRopeKV: true, wantRopeNorm: true},
		{name: "k norm output shared", b: 1, hd: 128, sharedK: true, wantRopeKV: true},
		{name: "group not head", b: 1, hd: 128, qGroup: 64, wantRopeKV: true},
		{name: "eps differ", b: 2, hd: 128, kEps: 1e-5, wantRopeKV: true},
		{name: "k norm only", b: 1, hd: 128, noQNorm: true, wantRopeKV: true},
		{name: "head over the kernel's", b: 1, hd: 512, wantRopeKV: true},
	} {
		const nHead, nKV, nEmbd = 4, 2, 256
		hd := v.hd
		g := compute.NewGraph(v.b, 1)
		w := func(name string, k, rows int) *compute.Tensor { return compute.NewWeight(name, gguf.TypeQ8_0, k, rows) }
		x := g.GetRows(w("embd", nEmbd, 50))
		h := g.RMSNorm(x, compute.NewWeight("attn_norm", gguf.TypeF32, nEmbd, 1), 1e-6, nEmbd)
		q := g.MatMul(w("q", nEmbd, nHead*hd), h, nil)
		k := g.MatMul(w("k", nEmbd, nKV*hd), h, nil)
		vv := g.MatMul(w("v", nEmbd, nKV*hd), h, nil)
		mode := compute.RopeNormal
		if v.neox {
			mode = compute.RopeNeox
		}
		rp := func(n int) compute.RopeParams {
			return compute.RopeParams{Mode: mode, NHeads: n, HeadDim: hd, NRot: hd, Base: 1e6, Scale: 1}
		}
		qGroup, kEps := hd, float32(1e-6)
		if v.qGroup != 0 {
			qGroup = v.qGroup
		}
		if v.kEps != 0 {
			kEps = v.kEps
		}
		qIn, kIn := q, k
		if !v.noQNorm {
			q = g.RMSNorm(q, compute.NewWeight("q_norm", gguf.TypeF32, qGroup, 1), 1e-6, qGroup)
		}
		knorm := func() {
			k = g.RMSNorm(k, compute.NewWeight("k_norm", gguf.TypeF32, hd, 1), kEps, hd)
			if v.sharedK {
				g.Scale(k, 2)
			}
			k = g.Rope(k, rp(nKV), nil)
		}
		if !v.kNormLate {
			knorm()
		}
		q = g.Rope(q, rp(nHead), nil)
		if v.kNormLate {
			knorm()
		}
		ap := compute.AttnParams{NHead: nHead, NHeadKV: nKV, HeadDim: hd, Scale: 0.1}
		kc, vc := compute.NewCache("k_cache", hd, 64, nKV), compute.NewCache("v_cache", hd, 64, nKV)
		g.KVWrite(k, vv, kc, vc, ap)
		o := g.MatMul(w("o", nHead*hd, nEmbd), g.Attention(q, kc, vc, ap), nil)
		if err := g.SetLogits(g.MatMul(w("out", nEmbd, 50), g.SelectRows(g.Add(o, x)), nil)); err != nil {
			t.Fatal(err)
		}
		if err := g.Err(); err != nil {
			t.Fatal(err)
		}
		f := planFusions(g, true, gguf.TypeF16, true)
		var rq, qn, kn *compute.Node
		for _, n := range g.Nodes {
			switch {
			case n.Op == compute.OpRope && n.Dst == q:
				rq = n
			case n.Op == compute.OpRMSNorm && n.Src[0] == qIn:
				qn = n
			case n.Op == compute.OpRMSNorm && n.Src[0] == kIn:
				kn = n
			}
		}
		_, gotKV := f.ropeKV[rq]
		rn, gotNorm := f.ropeNorm[rq]
		if gotKV != v.wantRopeKV || gotNorm != v.wantRopeNorm {
			t.Errorf("%s: rope_kv %v, rope norm %v; want %v, %v", v.name, gotKV, gotNorm, v.wantRopeKV, v.wantRopeNorm)
			continue
		}
		if v.wantRopeNorm {
			if rn != [2]*compute.Node{qn, kn} || f.by[qn] != rq || f.by[kn] != rq {
				t.Errorf("%s: norms %v absorbed by %v, %v; want %v by the q Rope", v.name, rn, f.by[qn], f.by[kn], [2]*compute.Node{qn, kn})
			}
			if f.lead[rq] != nil {
				t.Errorf("%s: the normed rope_kv moved into a matvec_qkv epilogue", v.name)
			}
		} else {
			for _, n := range []*compute.Node{qn, kn} {
				if n != nil && f.by[n] != nil {
					t.Errorf("%s: norm %s absorbed by %s", v.name, n.Dst.Name, f.by[n].Dst.Name)
				}
			}
		}
	}
}
