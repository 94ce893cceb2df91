package reference

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/webgguf/webgguf/engine/refcheck"
	"github.com/webgguf/webgguf/gguf"
)

// TestMatchesLlamaCppExact proves the float64 reference against llama.cpp's
// float64 fixtures (numpy on the same dequantized weights): both compute
// the same mathematics in double precision, so the top-20 logits and the
// lse agree to rounding (measured ~1e-13).
func TestMatchesLlamaCppExact(t *testing.T) {
	for _, name := range []string{"tiny-llama-mixed", "tiny-llama-untied-q8_0", "tiny-qwen2-q8_0", "tiny-qwen3-q8_0",
		"tiny-gemma3-q8_0", "tiny-gemma3-q4_k_m"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f, err := gguf.OpenPath(filepath.Join("..", "..", "testdata", "models", name+".gguf"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			exact, err := refcheck.Load(filepath.Join("..", "..", "testdata", "ref", name+".exact.json"))
			if err != nil {
				t.Fatal(err)
			}
			var worst float64
			for _, p := range exact.Prompts[:3] {
				got, err := Logits(f, p.IDs)
				if err != nil {
					t.Fatal(err)
				}
				for i, pos := range p.Positions {
					for _, pair := range pos.Top {
						worst = math.Max(worst, math.Abs(got[i][int(pair[0])]-pair[1]))
					}
					worst = math.Max(worst, math.Abs(lse(got[i])-pos.LSE))
				}
			}
			t.Logf("%s: max |Δ| vs llama.cpp float64 reference (top-20 logits, lse): %.2e", name, worst)
			if worst > 1e-9 {
				t.Errorf("max deviation %.3g > 1e-9", worst)
			}
		})
	}
}

func lse(x []float64) float64 {
	mx := math.Inf(-1)
	for _, v := range x {
		mx = math.Max(mx, v)
	}
	var s float64
	for _, v := range x {
		s += math.Exp(v - mx)
	}
	return mx + math.Log(s)
}
