package gen

import (
	"fmt"
	"math"

	"github.com/webgguf/webgguf/gguf"
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

// plan lists the tensors of the model in the order the HF converter writes
// them (token_embd, then each block, then output_norm and output), with
// llama.cpp's names and shapes:
//
//	token_embd.weight        [n_embd, n_vocab]
//	blk.N.attn_norm.weight   [n_embd]
//	blk.N.attn_q.weight      [n_embd, n_head·head_dim]    (+ .bias [n_head·head_dim], qwen2)
//	blk.N.attn_k.weight      [n_embd, n_head_kv·head_dim] (+ .bias, qwen2)
//	blk.N.attn_v.weight      [n_embd, n_head_kv·head_dim] (+ .bias, qwen2)
//	blk.N.attn_output.weight [n_head·head_dim, n_embd]
//	blk.N.attn_q_norm.weight, attn_k_norm.weight [head_dim] (qwen3)
//	blk.N.ffn_norm.weight    [n_embd]
//	blk.N.ffn_gate.weight, ffn_up.weight [n_embd, n_ff]
//	blk.N.ffn_down.weight    [n_ff, n_embd]
//	output_norm.weight       [n_embd]
//	output.weight            [n_embd, n_vocab] (untied only)
//
// Weight scales: matrices N(0, 1/fan_in) so each projection keeps unit
// variance; token_embd N(0, (2/√n_embd)²) so tied logits have std ≈ 2;
// biases N(0, 0.05²); norms 1 + N(0, 0.1²).
func plan(c *Config, nVocab int) ([]tensorSpec, error) {
	hd := c.headDim()
	e, q, kv, ff, v := uint64(c.NEmbd), uint64(c.NHead*hd), uint64(c.NHeadKV*hd), uint64(c.NFF), uint64(nVocab)
	var out []tensorSpec
	mixed := 0
	add := func(name string, ne []uint64, r role, layer int, init initKind, std float64) error {
		t, err := chooseType(c.Type, r, int(ne[0]), layer, c.NLayer, c.NHead/c.NHeadKV, mixed)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if r != roleVector {
			mixed++
		}
		out = append(out, tensorSpec{Name: name, Ne: ne, Type: t, Init: init, Std: std})
		return nil
	}
	w := func(fanIn uint64) float64 { return 1 / math.Sqrt(float64(fanIn)) }
	embdRole := roleEmbd
	if c.Tied {
		embdRole = roleOutput
	}
	var err error
	check := func(e error) {
		if err == nil {
			err = e
		}
	}
	check(add("token_embd.weight", []uint64{e, v}, embdRole, 0, initNormal, 2/math.Sqrt(float64(e))))
	for l := 0; l < c.NLayer; l++ {
		p := fmt.Sprintf("blk.%d.", l)
		check(add(p+"attn_norm.weight", []uint64{e}, roleVector, l, initNorm, 0))
		check(add(p+"attn_q.weight", []uint64{e, q}, roleWeight, l, initNormal, w(e)))
		if c.Arch == "qwen2" {
			check(add(p+"attn_q.bias", []uint64{q}, roleVector, l, initNormal, 0.05))
		}
		check(add(p+"attn_k.weight", []uint64{e, kv}, roleWeight, l, initNormal, w(e)))
		if c.Arch == "qwen2" {
			check(add(p+"attn_k.bias", []uint64{kv}, roleVector, l, initNormal, 0.05))
		}
		check(add(p+"attn_v.weight", []uint64{e, kv}, roleAttnV, l, initNormal, w(e)))
		if c.Arch == "qwen2" {
			check(add(p+"attn_v.bias", []uint64{kv}, roleVector, l, initNormal, 0.05))
		}
		check(add(p+"attn_output.weight", []uint64{q, e}, roleAttnOutput, l, initNormal, w(q)))
		if c.Arch == "qwen3" {
			check(add(p+"attn_q_norm.weight", []uint64{uint64(hd)}, roleVector, l, initNorm, 0))
			check(add(p+"attn_k_norm.weight", []uint64{uint64(hd)}, roleVector, l, initNorm, 0))
		}
		check(add(p+"ffn_norm.weight", []uint64{e}, roleVector, l, initNorm, 0))
		check(add(p+"ffn_gate.weight", []uint64{e, ff}, roleWeight, l, initNormal, w(e)))
		check(add(p+"ffn_up.weight", []uint64{e, ff}, roleWeight, l, initNormal, w(e)))
		check(add(p+"ffn_down.weight", []uint64{ff, e}, roleFFNDown, l, initNormal, w(ff)))
	}
	check(add("output_norm.weight", []uint64{e}, roleVector, 0, initNorm, 0))
	if !c.Tied {
		check(add("output.weight", []uint64{e, v}, roleOutput, 0, initNormal, w(e)))
	}
	if err != nil {
		return nil, err
	}
	var params uint64
	for i := range out {
		params += out[i].numel()
	}
	if params > maxParams {
		return nil, &ConfigError{"shape", params, fmt.Sprintf("more than %d parameters", uint64(maxParams))}
	}
	return out, nil
}
