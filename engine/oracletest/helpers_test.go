package oracletest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/enginetest"
	"github.com/webgguf/webgguf/gen"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/scripts/oracle"
)

// startOracle starts llama.cpp (scripts/oracle) for t and closes it when t
// ends. Without node-llama-cpp it skips t, except under CI, where make deps
// has installed it and its absence is a failure. root is the repository's
// root, from which the oracle and the generated models' files are found.
func startOracle(t *testing.T) (root string, c *oracle.Client) {
	t.Helper()
	root, _ = filepath.Abs(filepath.Join(enginetest.Testdata(), ".."))
	c, err := oracle.Start(root)
	if errors.Is(err, oracle.ErrNotInstalled) {
		if os.Getenv("CI") != "" {
			t.Fatal("llama.cpp oracle not installed (make deps)")
		}
		t.Skip("llama.cpp oracle not installed (make deps)")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return root, c
}

// shapeConfig completes shape i of oracleShapes (cfg) as the live tests write it: the
// rest of the hyperparameters, seed i+1, every other shape's output tied,
// tiny-llama's vocabulary (which llama.cpp and we both load from the file).
func shapeConfig(cfg gen.Config, i int, name string) gen.Config {
	cfg.Name = fmt.Sprintf("%s-%d", name, i)
	cfg.Ctx, cfg.RopeTheta, cfg.NormEps, cfg.Seed = 256, 10000, 1e-5, uint64(i+1)
	cfg.Tied = i%2 == 0
	cfg.Vocab = filepath.Join(enginetest.Testdata(), "models", "tiny-llama-q8_0.gguf")
	return cfg
}

// loadGenerated writes cfg to path with package gen, the file llama.cpp
// loads too, and loads it on the CPU backend with opts; the file and the
// engine are closed when t ends.
func loadGenerated(t *testing.T, path string, cfg gen.Config, opts engine.Options) (*engine.Engine, *gguf.File) {
	t.Helper()
	if err := gen.GenerateFile(path, cfg); err != nil {
		t.Fatal(err)
	}
	return enginetest.LoadPath(t, path, nil, opts)
}

// compareEmbedding embeds ids with e and with llama.cpp's model h (its
// ranking context when rank is set) and returns the largest difference
// relative to the vector's scale (its largest magnitude, at least 1) and
// the two vectors' cosine (1 for a single value, a reranker's score).
func compareEmbedding(t *testing.T, what string, e *engine.Engine, c *oracle.Client, h int, ids []int32, rank bool) (rel, cos float64) {
	t.Helper()
	got, err := e.EmbedIDs(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	want, err := c.Embed(h, ids, rank)
	if err != nil {
		t.Fatalf("%s: oracle: %v", what, err)
	}
	if len(want) != len(got) {
		t.Fatalf("%s: %d values, llama.cpp %d", what, len(got), len(want))
	}
	scale, dot, ng, nw := 1.0, 0.0, 0.0, 0.0
	for _, w := range want {
		scale = max(scale, math.Abs(w))
	}
	for j := range got {
		rel = max(rel, math.Abs(float64(got[j])-want[j])/scale)
		dot += float64(got[j]) * want[j]
		ng += float64(got[j]) * float64(got[j])
		nw += want[j] * want[j]
	}
	if len(got) <= 1 {
		return rel, 1
	}
	return rel, dot / math.Sqrt(ng*nw)
}
