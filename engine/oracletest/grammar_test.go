package oracletest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/enginetest"
	"github.com/webgguf/webgguf/gen"
	"github.com/webgguf/webgguf/sample"
	"github.com/webgguf/webgguf/sample/grammar"
	"github.com/webgguf/webgguf/sample/jsonschema"
	"github.com/webgguf/webgguf/scripts/oracle"
	"github.com/webgguf/webgguf/tokenizer"
)

// liveGrammars are constrained-generation cases: llama.cpp's json, list and
// chess grammars (sample/grammar/testdata), a recursive arithmetic grammar,
// repetitions, a negated class and a UTF-8 class (and liveSchemas).
var liveGrammars = map[string]string{
	"arith":  "root ::= expr\nexpr ::= term ((\"+\" | \"-\") term)*\nterm ::= [0-9]+ | \"(\" expr \")\"\n",
	"repeat": "root ::= [a-z]{2,5} (\" \" [a-z]{2,5}){1,3} \".\"\n",
	"notq":   "root ::= \"\\\"\" [^\"\\n]{1,20} \"\\\"\"\n",
	"utf8":   "root ::= [À-ÿ一-鿿]+ \"!\"\n",
}

// liveSchemas are JSON schemas whose grammars join liveGrammars.
var liveSchemas = map[string]string{
	"schema-object":  `{"type":"object","properties":{"name":{"type":"string","maxLength":12},"age":{"type":"integer","minimum":0,"maximum":120},"tags":{"type":"array","items":{"enum":["a","b"]},"maxItems":3}},"required":["name"]}`,
	"schema-formats": `{"type":"array","prefixItems":[{"type":"string","format":"date"},{"type":"string","format":"uuid"},{"type":"string","pattern":"^[A-Z]{2}-[0-9]{3}$"}]}`,
}

// nearTie is the logit gap under which our greedy pick and llama.cpp's may
// differ on q8_0, on either side's logits: different kernels round
// differently (llama.cpp releases differ by up to 0.42 on the fixtures'
// logits, scripts/oracle/README.md), and a random model's logits are flat.
const nearTie = 0.1

// TestGrammarGreedyLiveAgainstLlamaCpp: grammar-constrained greedy decoding
// on a generated model gives the tokens llama.cpp gives (node-llama-cpp's
// sampler with its grammar, scripts/oracle), for several grammars and
// prompts.
func TestGrammarGreedyLiveAgainstLlamaCpp(t *testing.T) {
	root, c := startOracle(t)
	for _, name := range []string{"json", "list", "chess"} {
		b, err := os.ReadFile(filepath.Join(root, "sample", "grammar", "testdata", name+".gbnf"))
		if err != nil {
			t.Fatal(err)
		}
		liveGrammars[name] = string(b)
	}
	// Grammars converted from JSON schemas (sample/jsonschema, the text
	// llama.cpp's converter writes): llama.cpp runs the same text.
	for name, schema := range liveSchemas {
		g, err := jsonschema.ToGrammar([]byte(schema))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		liveGrammars[name] = g
	}

	path := filepath.Join(t.TempDir(), "grammar.gguf")
	cfg := gen.Config{Name: "grammar", Arch: "llama", NEmbd: 256, NLayer: 2, NHead: 4, NHeadKV: 2, NFF: 512, Type: "q8_0",
		Ctx: 256, RopeTheta: 10000, NormEps: 1e-5, Seed: 7, Tied: true,
		Vocab: filepath.Join(enginetest.Testdata(), "models", "tiny-llama-q8_0.gguf")}
	e, f := loadGenerated(t, path, cfg, engine.Options{NCtx: 64, NUbatch: 8})
	tk, err := tokenizer.FromGGUF(f)
	if err != nil {
		t.Fatal(err)
	}
	vocab := grammar.TokenizerVocab(tk, 0)
	m, err := c.Load(path, false)
	if err != nil {
		t.Fatal(err)
	}
	const n = 24
	prompts := [][]int32{{1, 3000, 77}, {1, 450, 1234}, {1, 887, 526, 2318}}
	for name, src := range liveGrammars {
		comp, err := grammar.ParseCompile(src)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for pi, prompt := range prompts {
			t.Run(fmt.Sprintf("%s/%d", name, pi), func(t *testing.T) {
				resp, err := c.Batch([]oracle.Request{{"op": "generate", "model": m, "ids": prompt, "n": n, "grammar": src}})
				if err != nil {
					t.Fatal(err)
				}
				want := resp[0].IDs
				p := sample.Defaults()
				p.Temperature = 0
				ss, err := sample.New(tk.NumTokens(), p)
				if err != nil {
					t.Fatal(err)
				}
				gs, err := grammar.NewSampler(grammar.NewMatcher(comp, vocab), ss)
				if err != nil {
					t.Fatal(err)
				}
				e.Reset()
				var got []int32
				err = e.Generate(context.Background(), prompt, n, gs, func(tok int32) bool {
					got = append(got, tok)
					return !tk.IsEOG(tok)
				})
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%q", tk.Detokenize(got, false, false))
				if fmt.Sprint(got) == fmt.Sprint(want) {
					return
				}
				// Diverged: both picks must be allowed by the grammar there
				// and within a near tie of our logits (different kernels
				// round differently; random models have flat logits).
				i := 0
				for i < len(got) && i < len(want) && got[i] == want[i] {
					i++
				}
				if i == len(got) || i == len(want) {
					t.Fatalf("ours %v\nllama.cpp %v: one stops early", got, want)
				}
				mt := grammar.NewMatcher(comp, vocab)
				for _, id := range got[:i] {
					if err := mt.Accept(id); err != nil {
						t.Fatal(err)
					}
				}
				mask := make([]uint64, (vocab.Size()+63)/64)
				mt.Allowed(mask)
				if mask[want[i]>>6]&(1<<(want[i]&63)) == 0 {
					t.Fatalf("step %d: llama.cpp's token %d is not allowed by our grammar state\nours %v\nllama.cpp %v", i, want[i], got, want)
				}
				e.Reset()
				rows, err := e.Eval(context.Background(), append(append([]int32(nil), prompt...), got[:i]...), engine.LogitsLast)
				if err != nil {
					t.Fatal(err)
				}
				lrows, err := c.Logits(m, append(append([]int32(nil), prompt...), got[:i]...), false)
				if err != nil {
					t.Fatal(err)
				}
				gap := rows[0][got[i]] - rows[0][want[i]]
				lgap := lrows[0][want[i]] - lrows[0][got[i]]
				t.Logf("step %d: ours %d, llama.cpp %d, logit gap %.4f in ours, %.4f in llama.cpp's", i, got[i], want[i], gap, lgap)
				if gap > nearTie || lgap > nearTie {
					t.Errorf("step %d: ours %v\nllama.cpp %v: gaps %.4f / %.4f are no near tie", i, got, want, gap, lgap)
				}
			})
		}
	}
}
