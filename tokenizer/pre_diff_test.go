package tokenizer

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/scripts/oracle"
)

// writeVariant copies the metadata of testdata/models/<base>.gguf into a
// vocab-only GGUF whose tokenizer.ggml.pre is pre (removed when pre is "").
func writeVariant(t *testing.T, base, pre string) string {
	t.Helper()
	edits := map[string]any{"tokenizer.ggml.pre": nil}
	if pre != "" {
		edits["tokenizer.ggml.pre"] = pre
	}
	return writeEdited(t, base, edits)
}

// writeEdited copies the metadata of testdata/models/<base>.gguf into a
// vocab-only GGUF with the given keys replaced, added (after
// tokenizer.ggml.model) or, for a nil value, removed.
func writeEdited(t *testing.T, base string, edits map[string]any) string {
	t.Helper()
	f, err := gguf.OpenPath(filepath.Join("..", "testdata", "models", base+".gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var kv []gguf.KV
	done := map[string]bool{}
	for _, e := range f.KV {
		if v, ok := edits[e.Key]; ok {
			done[e.Key] = true
			if v != nil {
				kv = append(kv, gguf.KV{Key: e.Key, Value: gguf.ValueOf(v)})
			}
			continue
		}
		kv = append(kv, e)
		if e.Key == "tokenizer.ggml.model" {
			for k, v := range edits {
				if v != nil && f.KV != nil {
					if _, present := f.Value(k); !present {
						kv = append(kv, gguf.KV{Key: k, Value: gguf.ValueOf(v)})
						done[k] = true
					}
				}
			}
		}
	}
	path := filepath.Join(t.TempDir(), base+"-variant.gguf")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := gguf.Write(out, kv, nil, 0); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestOraclePreTokenizers runs the random strings through every
// pre-tokenizer this package implements (on gotiny's byte-level vocabulary
// relabelled with each tokenizer.ggml.pre) and compares with llama.cpp.
func TestOraclePreTokenizers(t *testing.T) {
	o := startOracle(t)
	n := diffCount(t) / 3
	pres := []string{"", "default", "llama-bpe", "qwen2", "stablelm2", "dbrx", "smaug-bpe", "chatglm-bpe",
		"gpt-2", "mpt", "olmo", "phi-2", "starcoder", "refact", "command-r", "smollm", "codeshell", "exaone", "falcon",
		"gpt-4o", "llama4", "tekken", "deepseek-coder", "deepseek-llm", "poro-chat", "bloom", "gpt3-finnish", "viking"}
	type variant struct{ base, pre string }
	var variants []variant
	for _, pre := range pres {
		variants = append(variants, variant{"gotiny-q4_k_m", pre})
	}
	// The Llama 3 vocabulary (280k merges, multi-digit and long tokens)
	// under other splitters, including tekken's ignore_merges.
	for _, pre := range []string{"tekken", "gpt-4o", "qwen2", "smollm"} {
		variants = append(variants, variant{"vocab-llama3-bpe", pre})
	}
	for i, vr := range variants {
		pre := vr.pre
		name := pre
		if name == "" {
			name = "missing"
		}
		if vr.base != "gotiny-q4_k_m" {
			name = vr.base + "/" + name
		}
		t.Run(name, func(t *testing.T) {
			path := writeVariant(t, vr.base, pre)
			f, err := gguf.OpenPath(path)
			if err != nil {
				t.Fatal(err)
			}
			tok, err := FromGGUF(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			h, err := o.Load(path, true)
			if err != nil {
				if strings.Contains(err.Error(), "pre-tokenizer") || strings.Contains(err.Error(), "Failed to load") {
					t.Logf("llama.cpp in the oracle does not load pre %q (%v); nothing to compare", pre, err)
					return
				}
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(uint64(1000+i), 7+diffSeed(t)))
			var texts []string
			var reqs []oracle.Request
			for j := 0; j < n; j++ {
				s := randText(rng, []string{"<|endoftext|>"})
				texts = append(texts, s)
				reqs = append(reqs, oracle.Request{"op": "tokenize", "model": h, "text": s, "addSpecial": true, "parseSpecial": true})
			}
			resp, err := o.Batch(reqs)
			if err != nil {
				t.Fatal(err)
			}
			fails := 0
			for j, r := range resp {
				got, err := tok.Encode(texts[j], true, true)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, r.IDs) && !(len(got) == 0 && len(r.IDs) == 0) {
					fails++
					if fails <= 5 {
						t.Errorf("Encode(%+q)\n got %v\nwant %v", texts[j], got, r.IDs)
					}
				}
			}
			if fails > 0 {
				t.Errorf("pre %q: %d of %d strings differ", pre, fails, n)
			}
		})
	}
}
