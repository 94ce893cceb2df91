// Package reference is a float64 forward pass of the supported
// architectures, written independently of package compute (plain loops,
// whole sequence at once, no KV cache, no graph): the oracle that the
// engine's backends are judged against on generated models, where no
// llama.cpp fixture exists. Its own fidelity is proven against llama.cpp's
// float64 fixtures (testdata/ref/*.exact.json) in its tests.
//
// The per-layer attention facts (RoPE mode, base and scale, whether a
// layer rotates, sliding window, query scale, soft-caps) come from
// model.ReadConfig, the one place that reads them; what differs in the
// structure of a block (embedding scale, post norms, FFN activation) is
// this package's table of architectures (forms).
//
// It is slow and holds every weight dequantized as float64: for tests on
// small models only.
package reference

import (
	"fmt"
	"math"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
)

// Logits returns the logits after every token of ids, [len(ids)][n_vocab],
// for the model in f, computed in float64 from the dequantized weights.
func Logits(f *gguf.File, ids []int32) ([][]float64, error) { return logits(f, ids, false) }

// LogitsF16KV is Logits with every K (after RoPE) and V value rounded to
// f16 (through f32, as a backend's f32 activations are) before attention,
// as llama.cpp's default f16 KV cache stores them: the exact answer for a
// backend with an f16 cache.
func LogitsF16KV(f *gguf.File, ids []int32) ([][]float64, error) { return logits(f, ids, true) }

// form is the structure of an architecture's blocks, where it differs
// from llama's.
type form struct {
	// embdScale multiplies the embeddings by √n_embd, unrounded: the
	// fixtures' float64 answers take the exact root (llama.cpp's sqrtf
	// differs from it by an f32 rounding, visible where n_embd is not a
	// square: 6e-8 on tiny-gemma2's logits).
	embdScale bool
	// postNorms norms each branch (post_attention_norm, post_ffw_norm)
	// before the residual add.
	postNorms bool
	// act is the FFN gate's activation.
	act func(float64) float64
	// subNorms norms the attention output before attn_output
	// (attn_sub_norm) and the gated FFN activation before ffn_down
	// (ffn_sub_norm), as BitNet does; its head is always token_embd.
	subNorms bool
}

// forms: llama, qwen2 and qwen3 differ only in optional tensors (biases,
// q/k norms), which the forward applies wherever the file has them.
var forms = map[string]form{
	"llama":  {act: silu},
	"qwen2":  {act: silu},
	"qwen3":  {act: silu},
	"gemma3": {embdScale: true, postNorms: true, act: geluTanh},
	// gemma2 is gemma3's form; its soft-caps come from the config.
	"gemma2":  {embdScale: true, postNorms: true, act: geluTanh},
	"smollm3": {act: silu},
	// phi3 is llama's form; its fused tensors are read as views, its
	// LongRoPE factors chosen in logits.
	"phi3": {act: silu},
	// bitnet is llama's form with sub-norms (llama.cpp's bitnet.cpp: SiLU).
	"bitnet": {act: silu, subNorms: true},
}

func silu(x float64) float64 { return x / (1 + math.Exp(-x)) }

// geluTanh is GELU in its tanh form (ggml_gelu, HF's gelu_pytorch_tanh).
func geluTanh(x float64) float64 {
	return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
}

func logits(f *gguf.File, ids []int32, kv16 bool) ([][]float64, error) {
	m, err := model.Load(f) // validates arch, tensors, shapes
	if err != nil {
		return nil, err
	}
	c, err := model.ReadConfig(f)
	if err != nil {
		return nil, err
	}
	fm, ok := forms[c.Arch]
	if !ok {
		return nil, fmt.Errorf("reference: architecture %q has no float64 forward", c.Arch)
	}
	if c.RopeMode != compute.RopeNormal && c.RopeMode != compute.RopeNeox {
		return nil, fmt.Errorf("reference: RoPE mode %d not supported", c.RopeMode)
	}
	w := &weights{f: f, cache: map[string][]float64{}, views: map[string]*compute.Tensor{}}
	for _, t := range m.Weights() {
		if t.View != nil {
			w.views[t.Name] = t
		}
	}
	eps := float64(c.Eps)
	emb := w.get("token_embd.weight")
	nEmbd := c.NEmbd
	nVocab := len(emb) / nEmbd
	T := len(ids)
	x := make([][]float64, T)
	for t, id := range ids {
		if id < 0 || int(id) >= nVocab {
			return nil, fmt.Errorf("reference: token %d outside vocabulary %d", id, nVocab)
		}
		x[t] = append([]float64(nil), emb[int(id)*nEmbd:int(id+1)*nEmbd]...)
		if fm.embdScale {
			s := math.Sqrt(float64(nEmbd))
			for i := range x[t] {
				x[t][i] *= s
			}
		}
	}
	// add adds the branch d to x, normed by the post norm when the
	// architecture has one.
	add := func(x, d []float64, post string) {
		if fm.postNorms {
			d = rmsNorm(d, w.get(post), eps)
		}
		for i := range x {
			x[i] += d[i]
		}
	}
	hd, nh, nkv := c.HeadDim, c.NHead, c.NHeadKV
	ff := w.opt("rope_freqs.weight")
	if c.Arch == "phi3" {
		// llama.cpp's get_rope_factors for a context of the sequence's
		// length: the long factors beyond the original context.
		ff = w.opt("rope_factors_short.weight")
		if T > c.NCtxOrig {
			ff = w.opt("rope_factors_long.weight")
		}
	}
	for l := range c.NLayer {
		lc := c.Layers[l]
		scale := exactScale(lc.AttnScale)
		p := fmt.Sprintf("blk.%d.", l)
		q := make([][]float64, T)
		k := make([][]float64, T)
		v := make([][]float64, T)
		for t := range T {
			h := rmsNorm(x[t], w.get(p+"attn_norm.weight"), eps)
			q[t] = matVec(w.get(p+"attn_q.weight"), h, w.opt(p+"attn_q.bias"))
			k[t] = matVec(w.get(p+"attn_k.weight"), h, w.opt(p+"attn_k.bias"))
			v[t] = matVec(w.get(p+"attn_v.weight"), h, w.opt(p+"attn_v.bias"))
			if qn := w.opt(p + "attn_q_norm.weight"); qn != nil {
				for hh := range nh {
					copy(q[t][hh*hd:], rmsNorm(q[t][hh*hd:(hh+1)*hd], qn, eps))
				}
			}
			if kn := w.opt(p + "attn_k_norm.weight"); kn != nil {
				for hh := range nkv {
					copy(k[t][hh*hd:], rmsNorm(k[t][hh*hd:(hh+1)*hd], kn, eps))
				}
			}
			if lc.Rope {
				for hh := range nh {
					rope(q[t][hh*hd:(hh+1)*hd], t, &c, &lc, ff)
				}
				for hh := range nkv {
					rope(k[t][hh*hd:(hh+1)*hd], t, &c, &lc, ff)
				}
			}
			if kv16 {
				for _, r := range [][]float64{k[t], v[t]} {
					for i, x := range r {
						r[i] = float64(gguf.F16ToF32(gguf.F32ToF16(float32(x))))
					}
				}
			}
		}
		for t := range T {
			// The query at t sees positions j ≤ t, and within a window
			// W only t-j < W (llama.cpp's LLAMA_SWA_TYPE_STANDARD).
			j0 := 0
			if lc.Window > 0 {
				j0 = max(0, t-lc.Window+1)
			}
			att := make([]float64, nh*hd)
			for hh := range nh {
				kh := hh / (nh / nkv)
				s := make([]float64, t+1-j0)
				mx := math.Inf(-1)
				for j := j0; j <= t; j++ {
					var d float64
					for i := range hd {
						d += q[t][hh*hd+i] * k[j][kh*hd+i]
					}
					d *= scale
					if sc := float64(lc.AttnSoftcap); sc > 0 {
						d = sc * math.Tanh(d/sc)
					}
					s[j-j0] = d
					mx = math.Max(mx, d)
				}
				var sum float64
				for j := range s {
					s[j] = math.Exp(s[j] - mx)
					sum += s[j]
				}
				for j := range s {
					for i := range hd {
						att[hh*hd+i] += s[j] / sum * v[j0+j][kh*hd+i]
					}
				}
			}
			if fm.subNorms {
				att = rmsNorm(att, w.get(p+"attn_sub_norm.weight"), eps)
			}
			add(x[t], matVec(w.get(p+"attn_output.weight"), att, nil), p+"post_attention_norm.weight")
			h := rmsNorm(x[t], w.get(p+"ffn_norm.weight"), eps)
			g := matVec(w.get(p+"ffn_gate.weight"), h, nil)
			u := matVec(w.get(p+"ffn_up.weight"), h, nil)
			for i := range g {
				g[i] = fm.act(g[i]) * u[i]
			}
			if fm.subNorms {
				g = rmsNorm(g, w.get(p+"ffn_sub_norm.weight"), eps)
			}
			add(x[t], matVec(w.get(p+"ffn_down.weight"), g, nil), p+"post_ffw_norm.weight")
		}
	}
	out := w.opt("output.weight")
	if out == nil || fm.subNorms {
		out = emb
	}
	logits := make([][]float64, T)
	for t := range T {
		logits[t] = matVec(out, rmsNorm(x[t], w.get("output_norm.weight"), eps), nil)
		if sc := float64(c.FinalSoftcap); sc > 0 {
			for i, v := range logits[t] {
				logits[t][i] = sc * math.Tanh(v/sc)
			}
		}
	}
	return logits, w.err
}

// exactScale returns the query scale in float64. Config holds it rounded
// to f32; when it is 1/sqrt(n) for a whole n (1/sqrt(head_dim) and every
// scale llama.cpp derives from the shape), the unrounded value is taken.
func exactScale(s32 float32) float64 {
	if s32 <= 0 {
		return float64(s32)
	}
	n := math.Round(1 / (float64(s32) * float64(s32)))
	if e := 1 / math.Sqrt(n); n >= 1 && float32(e) == s32 {
		return e
	}
	return float64(s32)
}

// weights reads and caches the dequantized weights by the names a file
// with separate tensors has. A weight that the model binds as a view of a
// fused tensor (Phi-3's attn_qkv) is read as that view's rows, so the
// forward above needs no case for fused files.
type weights struct {
	f     *gguf.File
	cache map[string][]float64
	views map[string]*compute.Tensor
	err   error
}

func (w *weights) opt(name string) []float64 {
	if v, ok := w.cache[name]; ok {
		return v
	}
	ti, ok := w.f.Tensor(name)
	if v := w.views[name]; v != nil {
		var err error
		if ti, err = model.WeightInfo(w.f, v); err != nil {
			if w.err == nil {
				w.err = err
			}
			return nil
		}
		ok = true
	}
	if !ok {
		return nil
	}
	raw, err := w.f.ReadTensor(ti)
	if err == nil {
		var f32 []float32
		if f32, err = gguf.Dequantize(ti.Type, raw, int(ti.NElements())); err == nil {
			v := make([]float64, len(f32))
			for i, x := range f32 {
				v[i] = float64(x)
			}
			w.cache[name] = v
			return v
		}
	}
	if w.err == nil {
		w.err = err
	}
	return nil
}

func (w *weights) get(name string) []float64 {
	v := w.opt(name)
	if v == nil && w.err == nil {
		w.err = &model.MissingTensorError{Name: name}
	}
	return v
}

// matVec returns W·x (+b) for W stored as rows of len(x) (ggml layout).
func matVec(W, x, b []float64) []float64 {
	n := len(x)
	if n == 0 || len(W)%n != 0 {
		return nil
	}
	y := make([]float64, len(W)/n)
	for r := range y {
		var s float64
		for i, xv := range x {
			s += W[r*n+i] * xv
		}
		if b != nil {
			s += b[r]
		}
		y[r] = s
	}
	return y
}

func rmsNorm(x, w []float64, eps float64) []float64 {
	var ss float64
	for _, v := range x {
		ss += v * v
	}
	s := 1 / math.Sqrt(ss/float64(len(x))+eps)
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = v * s * w[i]
	}
	return y
}

// rope rotates one head in place at position pos with layer lc's base
// and scale, pairing dimensions as c.RopeMode says (adjacent pairs, or i
// with i+NRot/2 for NEOX); ff, if not nil, divides each pair's frequency.
// Dimensions from NRot on are left as they are.
func rope(h []float64, pos int, c *model.Config, lc *model.LayerConfig, ff []float64) {
	half := c.NRot / 2
	for i := range half {
		theta := float64(pos) * float64(lc.RopeScale) * math.Pow(float64(lc.RopeBase), -2*float64(i)/float64(c.NRot))
		if ff != nil {
			theta /= ff[i]
		}
		a, b := 2*i, 2*i+1
		if c.RopeMode == compute.RopeNeox {
			a, b = i, i+half
		}
		x0, x1 := h[a], h[b]
		// ggml_rope_ext scales the rotated pairs by its attn_factor.
		m := float64(c.RopeAttnFactor)
		h[a] = m * (x0*math.Cos(theta) - x1*math.Sin(theta))
		h[b] = m * (x0*math.Sin(theta) + x1*math.Cos(theta))
	}
}
