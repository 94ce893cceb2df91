package oracletest

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/enginetest"
	"github.com/webgguf/webgguf/gen"
	"github.com/webgguf/webgguf/webgpu"
)

// TestEmbeddingsLiveAgainstLlamaCpp compares the CPU backend's pooled
// vectors with llama.cpp's (node-llama-cpp's embedding and ranking
// contexts, llama_get_embeddings_seq) on the BERT fixture with mean, cls
// and last pooling, and as a reranker (rank pooling with a classifier
// head); the fixture prompts' ids go to both. llama.cpp's CPU backend
// rounds activations to f16 before f16 weights (its mean-pooled vectors
// are 5.3e-4 from float64, where ours are 8e-7: TestEmbeddingsMatchLlamaCpp),
// and one row's hidden state (cls, last, rank) keeps that rounding where
// the mean averages it down, so the bound is 5e-3 of the vector's scale
// (LayerNorm outputs of a few units), with a cosine of at least 0.99999.
func TestEmbeddingsLiveAgainstLlamaCpp(t *testing.T) {
	_, c := startOracle(t)
	exact := enginetest.LoadEmbeddingRef(t, "tiny-bert-f16", "exact")
	dir := t.TempDir()
	type variant struct {
		name, arch string
		pooling    uint32
		tol, cos   float64
	}
	// The decoders: Qwen3-Embedding's shape (qwen3, last pooling) and a
	// mean-pooled llama; their result is the output-normed hidden state.
	// Their weights are q8_0, for which llama.cpp also quantizes the
	// activations to 8 bits (the logit fixtures' tolerances are 0.02-0.3
	// for the same reason): the bound is 5e-2 of the scale, cosine 0.999.
	const f16Tol, f16Cos, q8Tol, q8Cos = 5e-3, 0.99999, 5e-2, 0.999
	for _, v := range []variant{{"tiny-bert-f16", "bert", 1, f16Tol, f16Cos}, {"tiny-bert-f16", "bert", 2, f16Tol, f16Cos},
		{"tiny-bert-f16", "bert", 3, f16Tol, f16Cos}, {"tiny-bert-f16", "bert", 4, f16Tol, f16Cos},
		{"tiny-qwen3-q8_0", "qwen3", 3, q8Tol, q8Cos}, {"tiny-llama-q8_0", "llama", 1, q8Tol, q8Cos}} {
		pooling := v.pooling
		path := enginetest.PoolingVariant(t, dir, v.name, v.arch, pooling)
		e, _ := enginetest.LoadPath(t, path, nil, engine.Options{NCtx: 128})
		h, err := c.Load(path, false)
		if err != nil {
			t.Fatal(err)
		}
		worst, worstCos := 0.0, 1.0
		for _, p := range exact.Prompts {
			if len(p.IDs) > 100 {
				continue // the oracle's context is 512, ours 128
			}
			rel, cos := compareEmbedding(t, fmt.Sprintf("pooling %d", pooling), e, c, h, p.IDs, pooling == 4)
			worst, worstCos = max(worst, rel), min(worstCos, cos)
		}
		t.Logf("%s pooling %d: max |diff| from llama.cpp %.3g of the scale, cosine >= %.8f", v.name, pooling, worst, worstCos)
		if worst > v.tol || worstCos < v.cos {
			t.Errorf("%s pooling %d: max |diff| %.3g (bound %.g), cosine %.8f (bound %g)", v.name, pooling, worst, v.tol, worstCos, v.cos)
		}
		if pooling == 4 {
			// Rerank builds the pair as llama.cpp's server does; the same
			// ids through llama.cpp's ranking context give the same score.
			docs := []string{"there was a cat", "the stock market fell"}
			scores, err := e.Rerank(context.Background(), "Once upon a time", docs)
			if err != nil || len(scores) != 2 {
				t.Fatalf("Rerank: %v %v", scores, err)
			}
			tok, _ := e.Tokenizer()
			q, _ := tok.Encode("Once upon a time", false, false)
			for i, d := range docs {
				di, _ := tok.Encode(d, false, false)
				ids := append(append([]int32{tok.BOS()}, q...), di...) // SPM: add_bos only
				want, err := c.Embed(h, ids, true)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(float64(scores[i])-want[0]) > 5e-3*max(1, math.Abs(want[0])) {
					t.Errorf("Rerank doc %d: %g, llama.cpp %g", i, scores[i], want[0])
				}
				t.Logf("rerank doc %d: %g (llama.cpp %g)", i, scores[i], want[0])
			}
		}
	}
}

// TestEmbeddingPresetsLiveAgainstLlamaCpp generates shrunken
// bge-small-en-v1.5 (CLS pooling, WordPiece; and as a reranker),
// nomic-embed-text-v1.5 (nomic-bert: fused attn_qkv, NEOX RoPE, SwiGLU,
// mean pooling) and qwen3-embedding-0.6b (last pooling) models with
// package gen, and checks that llama.cpp loads them and agrees with the
// CPU backend: the WordPiece ids of the inputs, and the pooled vectors
// within the bounds above. The nomic-bert model is judged on the WebGPU
// backend (lavapipe natively) too, by the same bound.
func TestEmbeddingPresetsLiveAgainstLlamaCpp(t *testing.T) {
	root, c := startOracle(t)
	texts := []string{"What is the capital of France?", "Paris is the capital and largest city of France.", "Ünïcödé and CJK 中文 text!"}
	dir := t.TempDir()
	if d := os.Getenv("EMBED_KEEP"); d != "" {
		dir = d
	}
	for _, tc := range []struct {
		preset  string
		pooling int
		typ     string
		tol     float64
		gpu     bool // also on the WebGPU backend
		// The reranker's score passes two more f16 products (its head),
		// each rounding llama.cpp's activations to f16 again: 1e-2.
	}{{"bge-small-en-v1.5", 2, "f16", 5e-3, false}, {"bge-small-en-v1.5", 4, "f16", 1e-2, false},
		{"nomic-embed-text-v1.5", 1, "f16", 5e-3, true}, {"qwen3-embedding-0.6b", 3, "q8_0", 5e-2, false}} {
		cfg, ok := gen.Preset(tc.preset)
		if !ok {
			t.Fatalf("no preset %s", tc.preset)
		}
		cfg.NEmbd, cfg.NLayer, cfg.NHead, cfg.NHeadKV, cfg.NFF, cfg.Ctx = 128, 2, 4, 4, 256, 128
		if cfg.Arch == "qwen3" {
			cfg.NHeadKV, cfg.HeadDim, cfg.NVocab = 2, 64, 0
		}
		cfg.Pooling, cfg.Type, cfg.Seed = tc.pooling, tc.typ, 5
		cfg.Vocab = filepath.Join(root, cfg.Vocab)
		path := filepath.Join(dir, tc.preset+".gguf")
		e, f := loadGenerated(t, path, cfg, engine.Options{NCtx: 128})
		h, err := c.Load(path, false)
		if err != nil {
			t.Fatalf("llama.cpp loading %s: %v", tc.preset, err)
		}
		var ge *engine.Engine
		if tc.gpu {
			ge, err = engine.Load(context.Background(), f, engine.Options{NCtx: 128, Backend: gpu.New(device(t))})
			if err != nil {
				t.Fatalf("%s on WebGPU: %v", tc.preset, err)
			}
		}
		tok, _ := e.Tokenizer()
		worst, worstGPU := 0.0, 0.0
		for _, text := range texts {
			ids, err := tok.Encode(text, true, true)
			if err != nil {
				t.Fatal(err)
			}
			plain, _ := tok.Encode(text, false, true)
			theirs, err := c.Tokenize(h, text, false, true)
			if err != nil || !slices.Equal(plain, theirs) {
				t.Errorf("%s: %q tokenizes to %v, llama.cpp %v (%v)", tc.preset, text, plain, theirs, err)
			}
			rel, _ := compareEmbedding(t, tc.preset, e, c, h, ids, tc.pooling == 4)
			worst = max(worst, rel)
			if ge != nil {
				rel, _ := compareEmbedding(t, tc.preset+" on WebGPU", ge, c, h, ids, tc.pooling == 4)
				worstGPU = max(worstGPU, rel)
			}
		}
		t.Logf("%s pooling %d (%s): max |diff| from llama.cpp %.3g of the scale", tc.preset, tc.pooling, tc.typ, worst)
		if worst > tc.tol {
			t.Errorf("%s: max |diff| %.3g > %g", tc.preset, worst, tc.tol)
		}
		if ge != nil {
			t.Logf("%s on WebGPU: max |diff| from llama.cpp %.3g of the scale", tc.preset, worstGPU)
			if worstGPU > tc.tol {
				t.Errorf("%s on WebGPU: max |diff| %.3g > %g", tc.preset, worstGPU, tc.tol)
			}
			ge.Close()
		}
	}
}

// device opens one WebGPU device for the test binary (lavapipe natively)
// and fails, never skips, without an adapter, as compute/gpu's tests do.
func device(t testing.TB) *webgpu.Device {
	t.Helper()
	devOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		dev, devErr = webgpu.Open(ctx, webgpu.Options{})
	})
	if devErr != nil {
		t.Fatalf("webgpu.Open: %v (natively this needs a Vulkan driver: apt-get install mesa-vulkan-drivers)", devErr)
	}
	return dev
}

var (
	devOnce sync.Once
	dev     *webgpu.Device
	devErr  error
)
