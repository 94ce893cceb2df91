package model_test

import (
	"testing"

	"github.com/webgguf/webgguf/model"
)

// Describe must list exactly the tensors Load binds, with the shapes the
// file has: generators and tests write what Describe says.
func TestDescribeListsWhatLoadBinds(t *testing.T) {
	var models []model.Model
	for _, arch := range []string{"llama", "qwen2", "qwen3", "smollm3"} {
		for _, untied := range []bool{false, true} {
			s := base(arch)
			s.Untied = untied
			m, err := load(t, s)
			if err != nil {
				t.Fatal(err)
			}
			models = append(models, m)
		}
	}
	for _, name := range []string{"tiny-gemma3-q8_0", "tiny-gemma2-q4_0", "tiny-phi3-q8_0", "tiny-llama-untied-q8_0", "tiny-qwen2-q8_0", "tiny-bitnet-tq1_0"} {
		m := loadFixture(t, name)
		models = append(models, m)
	}
	for _, m := range models {
		c := m.Config()
		var with []string
		for _, w := range m.Weights() {
			switch w.Name {
			case "output.weight", "rope_freqs.weight", "rope_factors_short.weight", "rope_factors_long.weight":
				with = append(with, w.Name)
			}
		}
		d, err := model.Describe(c, with...)
		if err != nil {
			t.Fatalf("%s: %v", c.Arch, err)
		}
		// Describe lists a fused tensor once, where its first part (the
		// view of its row 0) is bound, with its full shape.
		type spec struct {
			name string
			ne   [2]int
		}
		var ws []spec
		at := map[string]int{}
		for _, w := range m.Weights() {
			if w.View == nil {
				ws = append(ws, spec{w.Name, [2]int{w.Ne[0], w.Ne[1]}})
				continue
			}
			i, ok := at[w.View.Source]
			if !ok {
				i, at[w.View.Source] = len(ws), len(ws)
				ws = append(ws, spec{w.View.Source, [2]int{w.Ne[0], 0}})
			}
			ws[i].ne[1] += w.Ne[1]
		}
		if len(d) != len(ws) {
			t.Fatalf("%s: Describe lists %d tensors, Load binds %d", c.Arch, len(d), len(ws))
		}
		for i, w := range ws {
			if d[i].Name != w.name || d[i].Ne != w.ne {
				t.Errorf("%s: tensor %d: Describe %v, Load %s %v", c.Arch, i, d[i], w.name, w.ne)
			}
		}
	}
	if _, err := model.Describe(model.Config{Arch: "gpt2"}); err == nil {
		t.Error("Describe of an unknown architecture succeeded")
	}
}
