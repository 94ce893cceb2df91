package model_test

import (
	"errors"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
)

// SmolLM3 rotates every layer but each fourth (il = 3, 7, 11, ...), as
// llama.cpp's constant n_no_rope_layer_step = 4 says, with adjacent-pair
// RoPE; the graph has a RoPE node pair on exactly the rotating layers.
func TestSmolLM3SkipsRopeEveryFourthLayer(t *testing.T) {
	s := base("smollm3")
	s.NLayer = 9
	m, err := load(t, s)
	if err != nil {
		t.Fatal(err)
	}
	c := m.Config()
	if c.RopeMode != compute.RopeNormal {
		t.Errorf("RoPE mode %v, want normal (adjacent pairs)", c.RopeMode)
	}
	var want []bool
	for il, l := range c.Layers {
		want = append(want, il != 3 && il != 7)
		if l.Rope != want[il] || l.Window != 0 || l.AttnSoftcap != 0 {
			t.Errorf("layer %d: %+v, want rope %v", il, l, want[il])
		}
	}
	g := compute.NewGraph(4, 4)
	if err := m.Forward(g, model.NewKVCache(c, 16, 4)); err != nil {
		t.Fatal(err)
	}
	// Count the RoPE nodes between consecutive KV writes (one a layer).
	layer, ropes := 0, make([]int, c.NLayer)
	for _, n := range g.Nodes {
		switch n.Op {
		case compute.OpRope:
			ropes[layer]++
		case compute.OpKVWrite:
			layer++
		}
	}
	for il, n := range ropes {
		if (n == 2) != want[il] || (n != 0 && n != 2) {
			t.Errorf("layer %d: %d RoPE nodes, want rope %v", il, n, want[il])
		}
	}
}

// llama.cpp asserts that smollm3 rotates whole heads.
func TestSmolLM3PartialRotaryRefused(t *testing.T) {
	s := base("smollm3")
	s.Set = []gguf.KV{{Key: "smollm3.rope.dimension_count", Value: gguf.ValueOf(uint32(8))}}
	_, err := load(t, s)
	var ke *model.KeyError
	if !errors.As(err, &ke) || ke.Key != "smollm3.rope.dimension_count" {
		t.Errorf("rope.dimension_count 8 of head width 16: %v", err)
	}
}
