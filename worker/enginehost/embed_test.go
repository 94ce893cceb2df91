package enginehost

import (
	"context"
	"math"
	"testing"

	"github.com/webgguf/webgguf/engine/enginetest"
)

// TestEmbed embeds the BERT fixture's prompts through the host, normalized
// and not, and compares them with llama.cpp's float64 reference; a
// generative model asked for embeddings is invalid-argument.
func TestEmbed(t *testing.T) {
	h := loadHost(t, "../../testdata/models/tiny-bert-f16.gguf", 0)
	exact := enginetest.LoadEmbeddingRef(t, "tiny-bert-f16", "exact")
	var texts []string
	for _, p := range exact.Prompts {
		texts = append(texts, p.Prompt)
	}
	for _, norm := range []bool{false, true} {
		n, data, tokens, err := h.Embed(context.Background(), texts, norm)
		if err != nil {
			t.Fatal(err)
		}
		if n != 96 || len(data) != n*len(texts) || len(tokens) != len(texts) {
			t.Fatalf("n_embd %d, %d values, %d token counts", n, len(data), len(tokens))
		}
		for i, p := range exact.Prompts {
			if int(tokens[i]) != len(p.IDs) {
				t.Errorf("prompt %d: %d tokens, want %d", i, tokens[i], len(p.IDs))
			}
			scale := 1.0
			if norm {
				var s float64
				for _, v := range p.Embedding {
					s += v * v
				}
				scale = 1 / math.Sqrt(s)
			}
			for j, w := range p.Embedding {
				if d := math.Abs(float64(data[i*n+j]) - w*scale); d > 1e-3 {
					t.Fatalf("normalize %v, prompt %d, component %d: %g, want %g", norm, i, j, data[i*n+j], w*scale)
				}
			}
		}
	}
	g := loadHost(t, "../../testdata/models/tiny-llama-q8_0.gguf", 64)
	if _, _, _, err := g.Embed(context.Background(), []string{"hi"}, true); kind(err) != KindInvalidArgument {
		t.Errorf("generative model: %v (kind %q), want invalid-argument", err, kind(err))
	}
	req := greedy(4)
	req.Prompt = "Once upon a time"
	if _, err := h.Generate(context.Background(), req, func(int32, string) error { return nil }); kind(err) != KindInvalidArgument {
		t.Errorf("generate on an embedding model: %v (kind %q), want invalid-argument", err, kind(err))
	}
	if _, _, err := h.Rerank(context.Background(), "q", []string{"d"}); kind(err) != KindInvalidArgument {
		t.Errorf("rerank on a mean-pooled model: %v, want invalid-argument", err)
	}
	if _, _, _, err := h.Embed(context.Background(), nil, true); kind(err) != KindInvalidArgument {
		t.Errorf("no inputs: %v, want invalid-argument", err)
	}
}

// TestRerank reranks through the host with the BERT fixture rewritten as a
// reranker: the scores equal the engine's for the same pairs, and each
// pair's token count is its RerankTokens length.
func TestRerank(t *testing.T) {
	path := enginetest.PoolingVariant(t, t.TempDir(), "tiny-bert-f16", "bert", 4)
	h := loadHost(t, path, 0)
	docs := []string{"there was a cat", "the stock market fell", "a"}
	scores, tokens, err := h.Rerank(context.Background(), "Once upon a time", docs)
	if err != nil {
		t.Fatal(err)
	}
	if len(scores) != len(docs) || len(tokens) != len(docs) {
		t.Fatalf("%d scores, %d token counts", len(scores), len(tokens))
	}
	m, _ := h.model()
	for i, d := range docs {
		ids, err := m.eng.RerankTokens("Once upon a time", d)
		if err != nil {
			t.Fatal(err)
		}
		v, err := m.eng.EmbedIDs(context.Background(), ids)
		if err != nil {
			t.Fatal(err)
		}
		if scores[i] != v[0] || int(tokens[i]) != len(ids) {
			t.Errorf("doc %d: score %g (%d tokens), engine %g (%d)", i, scores[i], tokens[i], v[0], len(ids))
		}
	}
	if scores[0] == scores[1] {
		t.Errorf("two documents scored the same: %v", scores)
	}
}
