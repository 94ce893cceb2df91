package enginetest

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/webgguf/webgguf/engine"
)

// EmbeddingModels are the embedding fixtures of testdata/models
// (FAMILIES.md): their refs hold pooled sequence embeddings, not logits.
var EmbeddingModels = []string{"tiny-bert-f16"}

// EmbeddingRef is the embedding variant of the fixtures' schema
// (FAMILIES.md): per prompt, the token ids and the pooled, un-normalized
// sequence embedding (llama_get_embeddings_seq, or its float64 value).
type EmbeddingRef struct {
	Prompts []struct {
		Prompt    string    `json:"prompt"`
		IDs       []int32   `json:"ids"`
		NEmbd     int       `json:"n_embd"`
		Pooling   *int      `json:"pooling"`
		Embedding []float64 `json:"embedding"`
	} `json:"prompts"`
}

// LoadEmbeddingRef reads testdata/ref/name.suffix.json.
func LoadEmbeddingRef(t testing.TB, name, suffix string) *EmbeddingRef {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(Testdata(), "ref", name+"."+suffix+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var r EmbeddingRef
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Prompts) == 0 {
		t.Fatalf("%s.%s: no prompts", name, suffix)
	}
	return &r
}

// Embeddings judges every embedding fixture by the fixtures' rule: the
// prompt tokenizes to llama.cpp's ids, and the largest component
// difference between the engine's pooled vector and the float64 one, over
// all prompts, is at most max(1e-3, 1.5 × llama.cpp's own).
func Embeddings(t *testing.T, nb NewBackend) {
	for _, name := range EmbeddingModels {
		t.Run(name, func(t *testing.T) {
			e, _ := Load(t, name, nb, engine.Options{})
			llama, exact := LoadEmbeddingRef(t, name, "ref"), LoadEmbeddingRef(t, name, "exact")
			if len(llama.Prompts) != len(exact.Prompts) {
				t.Fatalf("%d llama.cpp prompts, %d exact", len(llama.Prompts), len(exact.Prompts))
			}
			tok, err := e.Tokenizer()
			if err != nil {
				t.Fatal(err)
			}
			var ours, theirs float64
			for i, p := range llama.Prompts {
				x := exact.Prompts[i]
				ids, err := tok.Encode(p.Prompt, true, true)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(ids, p.IDs) {
					t.Errorf("prompt %d: ids %v, llama.cpp %v", i, ids, p.IDs)
				}
				got, err := e.EmbedIDs(context.Background(), p.IDs)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(x.Embedding) || len(got) != p.NEmbd {
					t.Fatalf("prompt %d: %d components, want %d", i, len(got), len(x.Embedding))
				}
				if p.Pooling != nil && int(e.Config().Pooling) != *p.Pooling {
					t.Errorf("pooling %d, llama.cpp %d", e.Config().Pooling, *p.Pooling)
				}
				for j, w := range x.Embedding {
					ours = max(ours, math.Abs(float64(got[j])-w))
					theirs = max(theirs, math.Abs(p.Embedding[j]-w))
				}
			}
			tol := max(1e-3, 1.5*theirs)
			t.Logf("%s: max |Δ| vs float64 %.3g (llama.cpp %.3g, tolerance %.3g)", name, ours, theirs, tol)
			if ours > tol {
				t.Errorf("max |Δ| %.3g exceeds %.3g", ours, tol)
			}
		})
	}
}
