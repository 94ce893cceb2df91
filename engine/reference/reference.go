// Package reference is a float64 forward pass of the supported
// architectures, written independently of package compute (plain loops,
// whole sequence at once, no KV cache, no graph): the oracle that the
// engine's backends are judged against on generated models, where no
// llama.cpp fixture exists. Its own fidelity is proven against llama.cpp's
// float64 fixtures (testdata/ref/*.exact.json) in its tests.
//
// It is slow and holds every weight dequantized as float64: for tests on
// small models only.
package reference

import (
	"fmt"
	"math"

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

func logits(f *gguf.File, ids []int32, kv16 bool) ([][]float64, error) {
	if _, err := model.Load(f); err != nil { // validates arch, tensors, shapes
		return nil, err
	}
	c, err := model.ReadConfig(f)
	if err != nil {
		return nil, err
	}
	w := &weights{f: f, cache: map[string][]float64{}}
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
	}
	neox := f.Arch() == "qwen2" || f.Arch() == "qwen3"
	hd, nh, nkv := c.HeadDim, c.NHead, c.NHeadKV
	for l := range c.NLayer {
		p := fmt.Sprintf("blk.%d.", l)
		q := make([][]float64, T)
		k := make([][]float64, T)
		v := make([][]float64, T)
		for t := range T {
			h := rmsNorm(x[t], w.get(p+"attn_norm.weight"), float64(c.Eps))
			q[t] = matVec(w.get(p+"attn_q.weight"), h, w.opt(p+"attn_q.bias"))
			k[t] = matVec(w.get(p+"attn_k.weight"), h, w.opt(p+"attn_k.bias"))
			v[t] = matVec(w.get(p+"attn_v.weight"), h, w.opt(p+"attn_v.bias"))
			if qn := w.opt(p + "attn_q_norm.weight"); qn != nil {
				for hh := range nh {
					copy(q[t][hh*hd:], rmsNorm(q[t][hh*hd:(hh+1)*hd], qn, float64(c.Eps)))
				}
			}
			if kn := w.opt(p + "attn_k_norm.weight"); kn != nil {
				for hh := range nkv {
					copy(k[t][hh*hd:], rmsNorm(k[t][hh*hd:(hh+1)*hd], kn, float64(c.Eps)))
				}
			}
			ff := w.opt("rope_freqs.weight")
			for hh := range nh {
				rope(q[t][hh*hd:(hh+1)*hd], t, c, neox, ff)
			}
			for hh := range nkv {
				rope(k[t][hh*hd:(hh+1)*hd], t, c, neox, ff)
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
			att := make([]float64, nh*hd)
			for hh := range nh {
				kh := hh / (nh / nkv)
				s := make([]float64, t+1)
				mx := math.Inf(-1)
				for j := 0; j <= t; j++ {
					for d := range hd {
						s[j] += q[t][hh*hd+d] * k[j][kh*hd+d]
					}
					s[j] /= math.Sqrt(float64(hd))
					mx = math.Max(mx, s[j])
				}
				var sum float64
				for j := range s {
					s[j] = math.Exp(s[j] - mx)
					sum += s[j]
				}
				for j := range s {
					for d := range hd {
						att[hh*hd+d] += s[j] / sum * v[j][kh*hd+d]
					}
				}
			}
			o := matVec(w.get(p+"attn_output.weight"), att, nil)
			for i := range x[t] {
				x[t][i] += o[i]
			}
			h := rmsNorm(x[t], w.get(p+"ffn_norm.weight"), float64(c.Eps))
			g := matVec(w.get(p+"ffn_gate.weight"), h, nil)
			u := matVec(w.get(p+"ffn_up.weight"), h, nil)
			for i := range g {
				g[i] = g[i] / (1 + math.Exp(-g[i])) * u[i]
			}
			d := matVec(w.get(p+"ffn_down.weight"), g, nil)
			for i := range x[t] {
				x[t][i] += d[i]
			}
		}
	}
	out := w.opt("output.weight")
	if out == nil {
		out = emb
	}
	logits := make([][]float64, T)
	for t := range T {
		logits[t] = matVec(out, rmsNorm(x[t], w.get("output_norm.weight"), float64(c.Eps)), nil)
	}
	return logits, w.err
}

type weights struct {
	f     *gguf.File
	cache map[string][]float64
	err   error
}

func (w *weights) opt(name string) []float64 {
	if v, ok := w.cache[name]; ok {
		return v
	}
	ti, ok := w.f.Tensor(name)
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

// rope rotates one head in place at position pos; ff, if not nil, divides
// each pair's frequency.
func rope(h []float64, pos int, c model.Config, neox bool, ff []float64) {
	half := c.NRot / 2
	for i := range half {
		theta := float64(pos) * float64(c.RopeScale) * math.Pow(float64(c.RopeBase), -2*float64(i)/float64(c.NRot))
		if ff != nil {
			theta /= ff[i]
		}
		a, b := 2*i, 2*i+1
		if neox {
			a, b = i, i+half
		}
		x0, x1 := h[a], h[b]
		h[a] = x0*math.Cos(theta) - x1*math.Sin(theta)
		h[b] = x0*math.Sin(theta) + x1*math.Cos(theta)
	}
}
