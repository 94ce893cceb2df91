package jsonschema_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/enginetest"
	"github.com/webgguf/webgguf/gen"
	"github.com/webgguf/webgguf/sample"
	"github.com/webgguf/webgguf/sample/grammar"
	"github.com/webgguf/webgguf/sample/jsonschema"
	"github.com/webgguf/webgguf/tokenizer"
)

// BenchmarkConstrainedDecode: decode tok/s on the CPU of a small generated
// model on Llama 3's 128k vocabulary, unconstrained and under llama.cpp's
// JSON grammar and a 20-property schema (temperature 0.8), and the
// constraint's cost per token (mask-ms/tok: the extra time per token over
// the unconstrained run). The model is small, so the ratio is a lower
// bound of what a real model sees: the mask costs the same, the forward
// pass far more.
func BenchmarkConstrainedDecode(b *testing.B) {
	path := filepath.Join(b.TempDir(), "llama3.gguf")
	cfg := gen.Config{Name: "bench", Arch: "llama", NEmbd: 256, NLayer: 4, NHead: 4, NHeadKV: 2, NFF: 768, Type: "q8_0",
		Ctx: 512, RopeTheta: 500000, NormEps: 1e-5, Seed: 3, Tied: true,
		Vocab: filepath.Join(enginetest.Testdata(), "models", "vocab-llama3-bpe.gguf")}
	if err := gen.GenerateFile(path, cfg); err != nil {
		b.Fatal(err)
	}
	e, f := enginetest.LoadPath(b, path, nil, engine.Options{NCtx: 512, NUbatch: 32})
	tk, err := tokenizer.FromGGUF(f)
	if err != nil {
		b.Fatal(err)
	}
	vocab := grammar.TokenizerVocab(tk, e.Config().NVocab)
	jsonGBNF, err := os.ReadFile(filepath.Join("..", "grammar", "testdata", "json.gbnf"))
	if err != nil {
		b.Fatal(err)
	}
	schemaGBNF, err := jsonschema.ToGrammar([]byte(jsonschema.Schema20()))
	if err != nil {
		b.Fatal(err)
	}
	const n = 64
	prompt := []int32{128000, 791, 4320, 374, 25}
	run := func(b *testing.B, src string) float64 {
		var comp *grammar.Compiled
		if src != "" {
			if comp, err = grammar.ParseCompile(src); err != nil {
				b.Fatal(err)
			}
		}
		var total time.Duration
		tokens := 0
		for i := 0; b.Loop(); i++ {
			p := sample.Defaults()
			p.Seed = uint32(i)
			ss, err := sample.New(e.Config().NVocab, p)
			if err != nil {
				b.Fatal(err)
			}
			var s engine.Sampler = ss
			if comp != nil {
				if s, err = grammar.NewSampler(grammar.NewMatcher(comp, vocab), ss); err != nil {
					b.Fatal(err)
				}
			}
			e.Reset()
			t0 := time.Now()
			err = e.Generate(context.Background(), prompt, n, s, func(tok int32) bool { tokens++; return !tk.IsEOG(tok) })
			total += time.Since(t0)
			if err != nil {
				b.Fatal(err)
			}
		}
		perTok := total.Seconds() / float64(tokens)
		b.ReportMetric(1/perTok, "tok/s")
		return perTok
	}
	var base float64
	b.Run("unconstrained", func(b *testing.B) { base = run(b, "") })
	for _, c := range []struct{ name, src string }{{"json-grammar", string(jsonGBNF)}, {"schema-20", schemaGBNF}} {
		b.Run(c.name, func(b *testing.B) {
			per := run(b, c.src)
			b.ReportMetric((per-base)*1000, "mask-ms/tok")
			b.ReportMetric(base/per, "x-unconstrained")
		})
	}
}
