package reference

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/webgguf/webgguf/engine/refcheck"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
	"github.com/webgguf/webgguf/model/modeltest"
)

// TestMatchesLlamaCppExact proves the float64 reference against llama.cpp's
// float64 fixtures (numpy on the same dequantized weights): both compute
// the same mathematics in double precision, so the top-20 logits and the
// lse agree to rounding (measured ~1e-13).
func TestMatchesLlamaCppExact(t *testing.T) {
	for _, name := range []string{"tiny-llama-mixed", "tiny-llama-untied-q8_0", "tiny-qwen2-q8_0", "tiny-qwen3-q8_0",
		"tiny-gemma3-q8_0", "tiny-gemma3-q4_k_m", "tiny-gemma2-q4_0", "tiny-phi3-q8_0", "tiny-bitnet-tq2_0", "tiny-bitnet-tq1_0"} {
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

// LogitsF16KV rounds K and V as an f16 cache stores them: close to the
// exact logits, not equal, on every generative architecture (gemma3's
// window layers included; an encoder such as bert keeps no KV cache and
// gives no logits).
func TestF16KV(t *testing.T) {
	for _, arch := range model.Architectures() {
		f, err := modeltest.Open(modeltest.Spec{Arch: arch, NEmbd: 64, NLayer: 2, NFF: 96, NVocab: 40, NHead: 2, NHeadKV: 1, HeadDim: 32,
			Type: gguf.TypeQ8_0, Window: 3, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		if c, err := model.ReadConfig(f); err != nil {
			t.Fatalf("%s: %v", arch, err)
		} else if c.Embeddings {
			continue
		}
		ids := []int32{1, 5, 9, 2, 7, 30, 11}
		exact, err := Logits(f, ids)
		if err != nil {
			t.Fatalf("%s: %v", arch, err)
		}
		kv16, err := LogitsF16KV(f, ids)
		if err != nil {
			t.Fatalf("%s: %v", arch, err)
		}
		var d float64
		for p := range exact {
			for i := range exact[p] {
				d = math.Max(d, math.Abs(exact[p][i]-kv16[p][i]))
			}
		}
		if d == 0 || d > 0.02 {
			t.Errorf("%s: f16 KV moves the logits by %.3g", arch, d)
		}
	}
}
