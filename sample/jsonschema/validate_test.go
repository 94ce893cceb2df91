package jsonschema_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"unicode/utf8"

	validator "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/enginetest"
	"github.com/webgguf/webgguf/gen"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/internal/longtest"
	"github.com/webgguf/webgguf/internal/schematest"
	"github.com/webgguf/webgguf/sample"
	"github.com/webgguf/webgguf/sample/grammar"
	"github.com/webgguf/webgguf/sample/jsonschema"
	"github.com/webgguf/webgguf/tokenizer"
)

// validateSchemas are bounded (strings, arrays and numbers have a maximum
// size), so every constrained generation ends within maxTokens.
var validateSchemas = map[string]string{
	"person": `{"type":"object","properties":{"name":{"type":"string","minLength":1,"maxLength":12},
		"age":{"type":"integer","minimum":0,"maximum":120},"member":{"type":"boolean"}},"required":["name","age","member"]}`,
	"enum": `{"type":"object","properties":{"color":{"enum":["red","green","blue"]},"kind":{"const":"paint"},
		"n":{"enum":[1,2.5,null,true]}},"required":["color","kind","n"]}`,
	"array":    `{"type":"array","items":{"type":"integer","minimum":-50,"maximum":50},"minItems":1,"maxItems":4}`,
	"nested":   `{"type":"object","properties":{"id":{"type":"integer","exclusiveMinimum":0,"maximum":9999},"tags":{"type":"array","items":{"type":"string","maxLength":6},"maxItems":3},"owner":{"type":"object","properties":{"first":{"type":"string","maxLength":8},"last":{"type":"string","maxLength":8}},"required":["first"]}},"required":["id","owner"]}`,
	"formats":  `{"type":"object","properties":{"d":{"type":"string","format":"date"},"t":{"type":"string","format":"time"},"u":{"type":"string","format":"uuid"}},"required":["d","t","u"]}`,
	"nullable": `{"type":"object","properties":{"note":{"anyOf":[{"type":"string","maxLength":10},{"type":"null"}]},"score":{"type":["integer","null"],"minimum":1,"maximum":5}},"required":["note","score"]}`,
	"pattern":  `{"type":"object","properties":{"code":{"type":"string","pattern":"^[A-Z]{2}-[0-9]{3}$"},"phone":{"type":"string","pattern":"^(\\([0-9]{3}\\) )?[0-9]{3}-[0-9]{4}$"}},"required":["code","phone"]}`,
	"refs":     `{"$defs":{"point":{"type":"object","properties":{"x":{"type":"integer","minimum":0,"maximum":99},"y":{"type":"integer","minimum":0,"maximum":99}},"required":["x","y"]}},"type":"object","properties":{"from":{"$ref":"#/$defs/point"},"to":{"$ref":"#/$defs/point"}},"required":["from","to"]}`,
	"allOf":    `{"allOf":[{"properties":{"a":{"type":"boolean"}}},{"properties":{"b":{"type":"string","maxLength":5}}}]}`,
	"tuple":    `{"type":"array","prefixItems":[{"type":"string","maxLength":4},{"type":"integer","minimum":0,"maximum":9},{"type":"boolean"}]}`,
	"number":   `{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x","y"],"additionalProperties":false}`,
}

const maxTokens = 400

// TestOutputsValidate: every output generated under a schema's grammar,
// greedy and sampled, on a SentencePiece and a byte-level BPE fixture
// model and a generated one on Llama 3's vocabulary, is valid UTF-8, parses as JSON and validates against the schema
// with an independent JSON Schema validator (formats asserted).
func TestOutputsValidate(t *testing.T) {
	// A generated model on Llama 3's 128k byte-level vocabulary, whose byte
	// tokens can split characters.
	llama3 := filepath.Join(t.TempDir(), "llama3.gguf")
	cfg := gen.Config{Name: "schema", Arch: "llama", NEmbd: 64, NLayer: 1, NHead: 2, NHeadKV: 1, NFF: 128, Type: "q8_0",
		Ctx: 512, RopeTheta: 500000, NormEps: 1e-5, Seed: 3, Tied: true,
		Vocab: filepath.Join(enginetest.Testdata(), "models", "vocab-llama3-bpe.gguf")}
	if err := gen.GenerateFile(llama3, cfg); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"tiny-llama-q8_0", "tiny-qwen2-q8_0", llama3} {
		var e *engine.Engine
		var f *gguf.File
		if filepath.IsAbs(name) {
			e, f = enginetest.LoadPath(t, name, nil, engine.Options{NCtx: 512, NUbatch: 32})
			name = "gen-llama3"
		} else {
			e, f = enginetest.Load(t, name, nil, engine.Options{NCtx: 512, NUbatch: 32})
		}
		tk, err := tokenizer.FromGGUF(f)
		if err != nil {
			t.Fatal(err)
		}
		vocab := grammar.TokenizerVocab(tk, e.Config().NVocab)
		prompt, err := tk.Encode("Answer in JSON: ", true, false)
		if err != nil {
			t.Fatal(err)
		}
		for sname, src := range validateSchemas {
			// The 128k vocabulary's masks cost seconds per output on the
			// shared 2-core machine: three schemas by default, all with
			// the long tag (make test-long).
			if name == "gen-llama3" && !longtest.Enabled && sname != "person" && sname != "formats" && sname != "nested" {
				continue
			}
			g, err := jsonschema.ToGrammar([]byte(src))
			if err != nil {
				t.Fatalf("%s: %v", sname, err)
			}
			comp, err := grammar.ParseCompile(g)
			if err != nil {
				t.Fatalf("%s: %v", sname, err)
			}
			sch := schematest.Compile(t, src, true)
			for _, temp := range []float32{0, 1.0} {
				t.Run(fmt.Sprintf("%s/%s/temp%g", name, sname, temp), func(t *testing.T) {
					p := sample.Defaults()
					p.Temperature, p.Seed = temp, 42
					got, ended, gs := schematest.Generate(t, e, tk, comp, vocab, p, prompt, maxTokens)
					out := tk.Detokenize(got, false, false)
					if !ended && !gs.Matcher().Complete() {
						t.Fatalf("no complete value in %d tokens: %q", maxTokens, out)
					}
					if !utf8.ValidString(out) {
						t.Fatalf("invalid UTF-8: %q", out)
					}
					inst, err := validator.UnmarshalJSON(bytes.NewReader([]byte(out)))
					if err != nil {
						t.Fatalf("not JSON: %v: %q", err, out)
					}
					if !json.Valid([]byte(out)) {
						t.Fatalf("not JSON: %q", out)
					}
					if err := sch.Validate(inst); err != nil {
						t.Fatalf("%q does not validate: %v", out, err)
					}
					t.Logf("%q", out)
				})
			}
		}
	}
}
