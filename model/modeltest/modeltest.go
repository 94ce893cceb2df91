// Package modeltest writes small random-weight GGUF models of any shape
// for tests: the architectures of package model with chosen GQA ratio,
// head width, widths that are not multiples of 256, tied or untied
// output, sliding windows, and any weight format gguf.Quantize supports.
// The tensor list and shapes are model.Describe's for the written
// metadata, so they are what model.Load expects.
package modeltest

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
)

// Spec is the shape of a generated model.
type Spec struct {
	Arch                       string // a registered architecture (others get llama's tensors)
	NEmbd, NLayer, NFF, NVocab int
	NHead, NHeadKV, HeadDim    int
	NRot                       int           // 0: HeadDim
	Type                       gguf.GGMLType // matrices (norms stay f32)
	Untied                     bool          // separate output.weight
	RopeFreqs                  bool          // rope_freqs.weight (factors 1..8; llama); phi3: LongRoPE's rope_factors_short (1..1.5) and rope_factors_long (1..8)
	RopeBase                   float32       // 0: 10000
	ContextLength              int           // 0: 2048
	// Window is attention.sliding_window (gemma3: on the layers where
	// il % 6 < 5, llama.cpp's default pattern; gemma2: on the even
	// layers); 0 writes no key.
	Window int
	Seed   uint64
	// Drop names tensors or keys to leave out (to test error paths).
	Drop []string
	// Set adds or replaces metadata keys, applied last.
	Set []gguf.KV
}

// Bytes returns the GGUF file of a model with Spec s and random weights:
// matrices N(0, 1/fan_in), the embedding N(0, 1) (N(0, 1/n_embd) for
// gemma2 and gemma3, which multiply it by √n_embd), norms 1 + N(0, 0.1²),
// biases N(0, 0.5²).
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
		// The encoders' (bert, nomic-bert) LayerNorm epsilon, which they
		// require; the decoders do not read it.
		{Key: a + ".attention.layer_norm_epsilon", Value: gguf.ValueOf(float32(1e-12))},
		{Key: a + ".rope.freq_base", Value: gguf.ValueOf(s.RopeBase)},
		{Key: a + ".rope.dimension_count", Value: gguf.ValueOf(uint32(s.NRot))},
	}
	if s.Window > 0 {
		kv = append(kv, gguf.KV{Key: a + ".attention.sliding_window", Value: gguf.ValueOf(uint32(s.Window))})
	}
	specs, err := describe(s, kv)
	if err != nil {
		return nil, err
	}
	var ts []gguf.TensorData
	for _, t := range specs {
		var v []float32
		typ := s.Type
		switch {
		case t.Ne[1] > 1 && t.Name == "token_embd.weight":
			// Unit variance, so that the residual stream starts O(1).
			sd := 1.0
			if a == "gemma3" || a == "gemma2" {
				sd = 1 / math.Sqrt(float64(s.NEmbd))
			}
			v = normal(rng, t.Ne[0]*t.Ne[1], sd)
		case t.Ne[1] > 1:
			v = normal(rng, t.Ne[0]*t.Ne[1], 1/math.Sqrt(float64(t.Ne[0])))
		case t.Name == "rope_freqs.weight" || t.Name == "rope_factors_long.weight" || t.Name == "rope_factors_short.weight":
			// Llama 3.1's factors run from 1 (high frequencies) to 8
			// (low), as LongRoPE's long ones roughly do; its short ones
			// stay near 1.
			top := float32(7)
			if t.Name == "rope_factors_short.weight" {
				top = 0.5
			}
			v = make([]float32, t.Ne[0])
			for i := range v {
				v[i] = 1 + top*float32(i)/float32(max(len(v)-1, 1))
			}
			typ = gguf.TypeF32
		case strings.HasSuffix(t.Name, ".bias"):
			v, typ = normal(rng, t.Ne[0], 0.5), gguf.TypeF32
		default: // norms
			v, typ = normal(rng, t.Ne[0], 0.1), gguf.TypeF32
			for i := range v {
				v[i]++
			}
		}
		data, err := gguf.Quantize(typ, v)
		if err != nil {
			return nil, fmt.Errorf("modeltest: %s: %w", t.Name, err)
		}
		ne := []uint64{uint64(t.Ne[0])}
		if t.Ne[1] > 1 {
			ne = append(ne, uint64(t.Ne[1]))
		}
		ts = append(ts, gguf.TensorData{Name: t.Name, Type: typ, Ne: ne, Data: data})
	}
	kv, ts = edit(kv, ts, s)
	var buf bytes.Buffer
	if err := gguf.Write(&buf, kv, ts, 0); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// describe returns model.Describe's tensor list for the model whose
// metadata is kv, read back by model.ReadConfig as a loader would.
func describe(s Spec, kv []gguf.KV) ([]model.TensorSpec, error) {
	var buf bytes.Buffer
	if err := gguf.Write(&buf, kv, nil, 0); err != nil {
		return nil, err
	}
	f, err := gguf.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		return nil, err
	}
	c, err := model.ReadConfig(f)
	if err != nil {
		return nil, fmt.Errorf("modeltest: %w", err)
	}
	c.NVocab = s.NVocab
	var with []string
	if s.Untied {
		with = append(with, "output.weight")
	}
	if s.RopeFreqs && s.Arch == "phi3" {
		with = append(with, "rope_factors_short.weight", "rope_factors_long.weight")
	} else if s.RopeFreqs {
		with = append(with, "rope_freqs.weight")
	}
	d, err := model.Describe(c, with...)
	if _, unknown := err.(*model.UnknownArchError); unknown {
		// An architecture model does not know gets llama's tensors, so
		// that tests can see the loader refuse it.
		c.Arch = "llama"
		d, err = model.Describe(c, with...)
	}
	return d, err
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
