package gen

import (
	"bytes"
	"context"
	"math"
	"testing"

	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/reference"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
)

// TestGenerateFused generates a llama whose architecture declares Phi-3's
// fusions (model.SetFusions): the plan, from model.Describe, lists
// attn_qkv and a gate+up ffn_up once each with their full shapes and no
// parts, attn_qkv gets llama-quantize's q4_k_m type for it (q5_K), and
// the file loads through views and runs on the CPU as the float64
// reference says.
func TestGenerateFused(t *testing.T) {
	defer model.SetFusions("llama", model.FusedQKV(), model.FusedGateUp())()
	c := smallConfig("llama", "q4_k_m")
	ts, err := plan(&c, 300)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]tensorSpec{
		"blk.1.attn_qkv.weight": {Ne: []uint64{256, 256 + 2*128}, Type: gguf.TypeQ5_K},
		"blk.1.ffn_up.weight":   {Ne: []uint64{256, 2 * 512}, Type: gguf.TypeQ4_K},
	}
	for _, s := range ts {
		switch s.Name {
		case "blk.0.attn_q.weight", "blk.0.attn_k.weight", "blk.0.attn_v.weight", "blk.0.ffn_gate.weight":
			t.Errorf("plan lists the part %s", s.Name)
		}
		if w, ok := want[s.Name]; ok {
			if s.Type != w.Type || len(s.Ne) != 2 || s.Ne[0] != w.Ne[0] || s.Ne[1] != w.Ne[1] {
				t.Errorf("%s: %s %v, want %s %v", s.Name, s.Type, s.Ne, w.Type, w.Ne)
			}
			delete(want, s.Name)
		}
	}
	if len(want) != 0 {
		t.Errorf("plan lacks %v", want)
	}

	c.Type = "q8_0"
	raw := generateBytes(t, c)
	f, err := gguf.Open(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	ids := []int32{1, 50, 7, 300, 12}
	ref, err := reference.Logits(f, ids)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Load(context.Background(), f, engine.Options{NCtx: 16})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	got, err := e.Eval(context.Background(), ids, engine.LogitsAll)
	if err != nil {
		t.Fatal(err)
	}
	var d float64
	for p := range ids {
		for k, w := range ref[p] {
			d = math.Max(d, math.Abs(float64(got[p][k])-w))
		}
	}
	if d > 0.02 {
		t.Errorf("CPU vs float64 reference: max |Δ| %.3g", d)
	}
}
