package gen

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
)

// init kinds: how a tensor's values are drawn.
type initKind int

const (
	initNormal initKind = iota // N(0, std²)
	initNorm                   // 1 + N(0, 0.1²): RMSNorm weights near 1
)

// tensorSpec is one tensor of the plan: name, shape (ne[0] = row length,
// as ggml), storage type and how to fill it.
type tensorSpec struct {
	Name string
	Ne   []uint64
	Type gguf.GGMLType
	Init initKind
	Std  float64
}

func (t *tensorSpec) rows() int { return int(t.numel() / t.Ne[0]) }
func (t *tensorSpec) numel() uint64 {
	n := uint64(1)
	for _, d := range t.Ne {
		n *= d
	}
	return n
}

// plan lists the tensors of the model: model.Describe's list for the
// configuration that model.ReadConfig reads from our metadata (so names,
// shapes and order are what the loader binds), each with its storage type
// (llama-quantize's choice, chooseType) and how to fill it.
//
// Weight scales: matrices N(0, 1/fan_in) so each projection keeps unit
// variance; token_embd N(0, (2/√n_embd)²) so tied logits have std ≈ 2;
// biases N(0, 0.05²); norms 1 + N(0, 0.1²) (gemma3's too: its converter
// stores 1 + w).
func plan(c *Config, nVocab int) ([]tensorSpec, error) {
	list, err := describe(c, nVocab)
	if err != nil {
		return nil, err
	}
	var out []tensorSpec
	mixed := 0
	var params uint64
	for _, d := range list {
		ne := []uint64{uint64(d.Ne[0])}
		if d.Ne[1] > 1 {
			ne = append(ne, uint64(d.Ne[1]))
		}
		r, layer := roleOf(d.Name, len(ne), c.Tied)
		t, err := chooseType(c.Type, r, d.Ne[0], layer, c.NLayer, c.NHead/c.NHeadKV, mixed)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.Name, err)
		}
		if d.Name == "position_embd.weight" || d.Name == "token_types.weight" {
			// Added to the activations by ggml_add, which takes no f16 or
			// quantized operand on the CPU; the converter keeps them f32.
			t = gguf.TypeF32
		}
		if r != roleVector {
			mixed++
		}
		s := tensorSpec{Name: d.Name, Ne: ne, Type: t, Init: initNormal}
		switch {
		case len(ne) == 2 && d.Name == "token_embd.weight":
			s.Std = 2 / math.Sqrt(float64(d.Ne[0]))
		case len(ne) == 2:
			s.Std = 1 / math.Sqrt(float64(d.Ne[0]))
		case strings.HasSuffix(d.Name, ".bias"):
			s.Std = 0.05
		default:
			s.Init = initNorm
		}
		out = append(out, s)
		params += s.numel()
	}
	if params > maxParams {
		return nil, &ConfigError{"shape", params, fmt.Sprintf("more than %d parameters", uint64(maxParams))}
	}
	return out, nil
}

// describe returns model.Describe's tensor list for the model c
// describes, reading the hyper-parameters back from our own metadata with
// model.ReadConfig, as a loader will.
func describe(c *Config, nVocab int) ([]model.TensorSpec, error) {
	var buf bytes.Buffer
	if err := gguf.Write(&buf, metadata(c, nVocab, nil), nil, 0); err != nil {
		return nil, err
	}
	f, err := gguf.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		return nil, err
	}
	mc, err := model.ReadConfig(f)
	if err != nil {
		return nil, &ConfigError{"shape", c.Arch, err.Error()}
	}
	mc.NVocab = nVocab
	var with []string
	if !c.Tied {
		with = append(with, "output.weight")
	}
	if c.CtxOrig > 0 {
		with = append(with, "rope_factors_short.weight", "rope_factors_long.weight")
	}
	if isEncoder(c.Arch) {
		with = append(with, "token_types.weight")
		if c.Pooling == 4 {
			with = append(with, "cls.weight", "cls.bias", "cls.output.weight", "cls.output.bias")
		}
	}
	list, err := model.Describe(mc, with...)
	if err != nil {
		return nil, &ConfigError{"Arch", c.Arch, err.Error()}
	}
	return list, nil
}

// roleOf is the type-selection role of the tensor named name with dims
// dimensions, and its layer (0 outside the blocks).
func roleOf(name string, dims int, tied bool) (role, int) {
	layer := 0
	if rest, ok := strings.CutPrefix(name, "blk."); ok {
		n, _, _ := strings.Cut(rest, ".")
		layer, _ = strconv.Atoi(n)
	}
	switch {
	case dims == 1:
		return roleVector, layer
	case name == "token_embd.weight" && tied, name == "output.weight":
		return roleOutput, layer
	case name == "token_embd.weight":
		return roleEmbd, layer
	case strings.HasSuffix(name, ".attn_v.weight"):
		return roleAttnV, layer
	case strings.HasSuffix(name, ".attn_output.weight"):
		return roleAttnOutput, layer
	case strings.HasSuffix(name, ".ffn_down.weight"):
		return roleFFNDown, layer
	case strings.HasSuffix(name, ".attn_qkv.weight"):
		return roleAttnQKV, layer
	}
	return roleWeight, layer
}
