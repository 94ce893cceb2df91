// Package modeltest writes small random-weight GGUF models of any shape
// for tests: the supported architectures with chosen GQA ratio, head
// width, widths that are not multiples of 256, tied or untied output, and
// any weight format gguf.Quantize supports.
package modeltest

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/webgguf/webgguf/gguf"
)

// Spec is the shape of a generated model.
type Spec struct {
	Arch                       string // llama, qwen2, qwen3
	NEmbd, NLayer, NFF, NVocab int
	NHead, NHeadKV, HeadDim    int
	NRot                       int           // 0: HeadDim
	Type                       gguf.GGMLType // matrices (norms stay f32)
	Untied                     bool          // separate output.weight
	RopeFreqs                  bool          // rope_freqs.weight (factors 1..8)
	RopeBase                   float32       // 0: 10000
	ContextLength              int           // 0: 2048
	Seed                       uint64
	// Drop names tensors or keys to leave out (to test error paths).
	Drop []string
	// Set adds or replaces metadata keys, applied last.
	Set []gguf.KV
}

// Bytes returns the GGUF file of a model with Spec s and random weights.
func Bytes(s Spec) ([]byte, error) {
	if s.NRot == 0 {
		s.NRot = s.HeadDim
	}
	if s.RopeBase == 0 {
		s.RopeBase = 10000
	}
	if s.ContextLength == 0 {
		s.ContextLength = 2048
	}
	rng := rand.New(rand.NewPCG(s.Seed, 0x9e3779b97f4a7c15))
	a := s.Arch
	kv := []gguf.KV{
		{Key: "general.architecture", Value: gguf.ValueOf(a)},
		{Key: a + ".context_length", Value: gguf.ValueOf(uint32(s.ContextLength))},
		{Key: a + ".embedding_length", Value: gguf.ValueOf(uint32(s.NEmbd))},
		{Key: a + ".block_count", Value: gguf.ValueOf(uint32(s.NLayer))},
		{Key: a + ".feed_forward_length", Value: gguf.ValueOf(uint32(s.NFF))},
		{Key: a + ".attention.head_count", Value: gguf.ValueOf(uint32(s.NHead))},
		{Key: a + ".attention.head_count_kv", Value: gguf.ValueOf(uint32(s.NHeadKV))},
		{Key: a + ".attention.key_length", Value: gguf.ValueOf(uint32(s.HeadDim))},
		{Key: a + ".attention.value_length", Value: gguf.ValueOf(uint32(s.HeadDim))},
		{Key: a + ".attention.layer_norm_rms_epsilon", Value: gguf.ValueOf(float32(1e-5))},
		{Key: a + ".rope.freq_base", Value: gguf.ValueOf(s.RopeBase)},
		{Key: a + ".rope.dimension_count", Value: gguf.ValueOf(uint32(s.NRot))},
	}
	var ts []gguf.TensorData
	var err error
	mat := func(name string, k, m int) {
		data, e := gguf.Quantize(s.Type, normal(rng, k*m, 1/math.Sqrt(float64(k))))
		if e != nil && err == nil {
			err = fmt.Errorf("modeltest: %s: %w", name, e)
		}
		ts = append(ts, gguf.TensorData{Name: name, Type: s.Type, Ne: []uint64{uint64(k), uint64(m)}, Data: data})
	}
	vec := func(name string, n int, mean, sd float64) {
		v := normal(rng, n, sd)
		for i := range v {
			v[i] += float32(mean)
		}
		data, _ := gguf.Quantize(gguf.TypeF32, v)
		ts = append(ts, gguf.TensorData{Name: name, Type: gguf.TypeF32, Ne: []uint64{uint64(n)}, Data: data})
	}
	q, kvw := s.NHead*s.HeadDim, s.NHeadKV*s.HeadDim
	// The embedding gets unit variance so the residual stream starts O(1).
	data, e := gguf.Quantize(s.Type, normal(rng, s.NEmbd*s.NVocab, 1))
	if e != nil {
		return nil, fmt.Errorf("modeltest: token_embd: %w", e)
	}
	ts = append(ts, gguf.TensorData{Name: "token_embd.weight", Type: s.Type, Ne: []uint64{uint64(s.NEmbd), uint64(s.NVocab)}, Data: data})
	for l := range s.NLayer {
		p := fmt.Sprintf("blk.%d.", l)
		vec(p+"attn_norm.weight", s.NEmbd, 1, 0.1)
		mat(p+"attn_q.weight", s.NEmbd, q)
		mat(p+"attn_k.weight", s.NEmbd, kvw)
		mat(p+"attn_v.weight", s.NEmbd, kvw)
		if a == "qwen2" {
			vec(p+"attn_q.bias", q, 0, 0.5)
			vec(p+"attn_k.bias", kvw, 0, 0.5)
			vec(p+"attn_v.bias", kvw, 0, 0.5)
		}
		if a == "qwen3" {
			vec(p+"attn_q_norm.weight", s.HeadDim, 1, 0.1)
			vec(p+"attn_k_norm.weight", s.HeadDim, 1, 0.1)
		}
		mat(p+"attn_output.weight", q, s.NEmbd)
		vec(p+"ffn_norm.weight", s.NEmbd, 1, 0.1)
		mat(p+"ffn_gate.weight", s.NEmbd, s.NFF)
		mat(p+"ffn_up.weight", s.NEmbd, s.NFF)
		mat(p+"ffn_down.weight", s.NFF, s.NEmbd)
	}
	vec("output_norm.weight", s.NEmbd, 1, 0.1)
	if s.RopeFreqs {
		// Llama 3.1's factors run from 1 (high frequencies) to 8 (low).
		ff := make([]float32, s.NRot/2)
		for i := range ff {
			ff[i] = 1 + 7*float32(i)/float32(max(len(ff)-1, 1))
		}
		data, _ := gguf.Quantize(gguf.TypeF32, ff)
		ts = append(ts, gguf.TensorData{Name: "rope_freqs.weight", Type: gguf.TypeF32, Ne: []uint64{uint64(len(ff))}, Data: data})
	}
	if s.Untied {
		mat("output.weight", s.NEmbd, s.NVocab)
	}
	if err != nil {
		return nil, err
	}
	kv, ts = edit(kv, ts, s)
	var buf bytes.Buffer
	if err := gguf.Write(&buf, kv, ts, 0); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Open returns the parsed generated model.
func Open(s Spec) (*gguf.File, error) {
	b, err := Bytes(s)
	if err != nil {
		return nil, err
	}
	return gguf.Open(bytes.NewReader(b), int64(len(b)))
}

// normal returns n samples of N(0, sd²); never all zeros.
func normal(rng *rand.Rand, n int, sd float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64() * sd)
	}
	return v
}

func edit(kv []gguf.KV, ts []gguf.TensorData, s Spec) ([]gguf.KV, []gguf.TensorData) {
	drop := map[string]bool{}
	for _, d := range s.Drop {
		drop[d] = true
	}
	set := map[string]gguf.Value{}
	for _, x := range s.Set {
		set[x.Key] = x.Value
	}
	var okv []gguf.KV
	for _, x := range kv {
		if v, ok := set[x.Key]; ok {
			x.Value = v
			delete(set, x.Key)
		}
		if !drop[x.Key] {
			okv = append(okv, x)
		}
	}
	for _, x := range s.Set {
		if _, left := set[x.Key]; left {
			okv = append(okv, x)
		}
	}
	var ots []gguf.TensorData
	for _, t := range ts {
		if !drop[t.Name] {
			ots = append(ots, t)
		}
	}
	return okv, ots
}
