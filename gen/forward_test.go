package gen

import (
	"math"
	"strconv"
	"testing"

	"github.com/webgguf/webgguf/gguf"
)

// refModel holds a model's weights dequantized to float64, for an exact
// (float64) forward pass to compare llama.cpp's logits against.
type refModel struct {
	arch                       string
	nEmbd, nHead, nKV, hd, nFF int
	nLayer, nVocab             int
	eps, theta                 float64
	w                          map[string][]float64
}

func loadRefModel(t *testing.T, f *gguf.File) *refModel {
	t.Helper()
	u := func(k string) int { v, _ := f.Uint("{arch}." + k); return int(v) }
	m := &refModel{arch: f.Arch(), nEmbd: u("embedding_length"), nHead: u("attention.head_count"), nKV: u("attention.head_count_kv"),
		nFF: u("feed_forward_length"), nLayer: u("block_count"), nVocab: u("vocab_size"), w: map[string][]float64{}}
	m.hd = m.nEmbd / m.nHead
	if kl := u("attention.key_length"); kl != 0 {
		m.hd = kl
	}
	m.eps, _ = f.Float("{arch}.attention.layer_norm_rms_epsilon")
	m.theta, _ = f.Float("{arch}.rope.freq_base")
	for _, ti := range f.Tensors {
		raw, err := f.ReadTensor(&ti)
		if err != nil {
			t.Fatal(err)
		}
		n := 1
		for _, d := range ti.Ne {
			n *= int(d)
		}
		x, err := gguf.Dequantize(ti.Type, raw, n)
		if err != nil {
			t.Fatal(err)
		}
		y := make([]float64, n)
		for i, v := range x {
			y[i] = float64(v)
		}
		m.w[ti.Name] = y
	}
	return m
}

// matvec: W has ne = [in, out], row r contiguous; returns W·x (+ bias).
func (m *refModel) matvec(name string, x []float64, out int) []float64 {
	w := m.w[name+".weight"]
	in := len(x)
	y := make([]float64, out)
	for r := 0; r < out; r++ {
		var s float64
		row := w[r*in : (r+1)*in]
		for i, v := range row {
			s += v * x[i]
		}
		y[r] = s
	}
	if b, ok := m.w[name+".bias"]; ok {
		for i := range y {
			y[i] += b[i]
		}
	}
	return y
}

func (m *refModel) rmsNorm(x, g []float64) []float64 {
	var ss float64
	for _, v := range x {
		ss += v * v
	}
	s := 1 / math.Sqrt(ss/float64(len(x))+m.eps)
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = v * s * g[i]
	}
	return y
}

// rope rotates each head of x in place at position pos: llama pairs
// adjacent elements (ggml's normal mode), qwen2/qwen3 pair i with i+hd/2
// (NEOX mode), as llama.cpp does for these architectures.
func (m *refModel) rope(x []float64, nh, pos int) {
	neox := m.arch != "llama"
	for h := 0; h < nh; h++ {
		v := x[h*m.hd : (h+1)*m.hd]
		for i := 0; i < m.hd/2; i++ {
			ang := float64(pos) * math.Pow(m.theta, -2*float64(i)/float64(m.hd))
			c, s := math.Cos(ang), math.Sin(ang)
			a, b := 2*i, 2*i+1
			if neox {
				a, b = i, i+m.hd/2
			}
			v[a], v[b] = v[a]*c-v[b]*s, v[a]*s+v[b]*c
		}
	}
}

// logits runs the prompt through the model in float64 and returns the
// logits after its last token.
func (m *refModel) logits(ids []int) []float64 {
	type kvc struct{ k, v [][]float64 }
	cache := make([]kvc, m.nLayer)
	embd := m.w["token_embd.weight"]
	var x []float64
	for pos, id := range ids {
		x = append([]float64(nil), embd[id*m.nEmbd:(id+1)*m.nEmbd]...)
		for l := 0; l < m.nLayer; l++ {
			p := "blk." + strconv.Itoa(l) + "."
			h := m.rmsNorm(x, m.w[p+"attn_norm.weight"])
			q := m.matvec(p+"attn_q", h, m.nHead*m.hd)
			k := m.matvec(p+"attn_k", h, m.nKV*m.hd)
			v := m.matvec(p+"attn_v", h, m.nKV*m.hd)
			if qn, ok := m.w[p+"attn_q_norm.weight"]; ok {
				for hh := 0; hh < m.nHead; hh++ {
					copy(q[hh*m.hd:], m.rmsNorm(q[hh*m.hd:(hh+1)*m.hd], qn))
				}
				kn := m.w[p+"attn_k_norm.weight"]
				for hh := 0; hh < m.nKV; hh++ {
					copy(k[hh*m.hd:], m.rmsNorm(k[hh*m.hd:(hh+1)*m.hd], kn))
				}
			}
			m.rope(q, m.nHead, pos)
			m.rope(k, m.nKV, pos)
			cache[l].k = append(cache[l].k, k)
			cache[l].v = append(cache[l].v, v)
			att := make([]float64, m.nHead*m.hd)
			for hh := 0; hh < m.nHead; hh++ {
				kh := hh / (m.nHead / m.nKV)
				qh := q[hh*m.hd : (hh+1)*m.hd]
				sc := make([]float64, pos+1)
				mx := math.Inf(-1)
				for j := 0; j <= pos; j++ {
					var s float64
					for d, qv := range qh {
						s += qv * cache[l].k[j][kh*m.hd+d]
					}
					sc[j] = s / math.Sqrt(float64(m.hd))
					mx = math.Max(mx, sc[j])
				}
				var z float64
				for j := range sc {
					sc[j] = math.Exp(sc[j] - mx)
					z += sc[j]
				}
				for j := range sc {
					for d := 0; d < m.hd; d++ {
						att[hh*m.hd+d] += sc[j] / z * cache[l].v[j][kh*m.hd+d]
					}
				}
			}
			o := m.matvec(p+"attn_output", att, m.nEmbd)
			for i := range x {
				x[i] += o[i]
			}
			h = m.rmsNorm(x, m.w[p+"ffn_norm.weight"])
			g := m.matvec(p+"ffn_gate", h, m.nFF)
			up := m.matvec(p+"ffn_up", h, m.nFF)
			for i := range g {
				g[i] = g[i] / (1 + math.Exp(-g[i])) * up[i]
			}
			d := m.matvec(p+"ffn_down", g, m.nEmbd)
			for i := range x {
				x[i] += d[i]
			}
		}
	}
	x = m.rmsNorm(x, m.w["output_norm.weight"])
	out := "output"
	if _, ok := m.w["output.weight"]; !ok {
		out = "token_embd"
	}
	return m.matvec(out, x, m.nVocab)
}
