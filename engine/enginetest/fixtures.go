package enginetest

import (
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/refcheck"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/tokenizer"
)

// NewBackend makes a fresh backend for one engine; nil means the engine's
// default (CPU).
type NewBackend func(t testing.TB) compute.Backend

// FixtureModels are all model fixtures of testdata/models (FIXTURES.md).
var FixtureModels = []string{
	"tiny-llama-f16", "tiny-llama-q8_0", "tiny-llama-q4_0", "tiny-llama-q4_k_m",
	"tiny-llama-mixed", "tiny-llama-untied-q8_0", "tiny-qwen2-q8_0", "tiny-qwen3-q8_0",
	"gotiny-q4_k_m", "tiny-gemma3-q8_0", "tiny-gemma3-q4_k_m", "tiny-gemma2-q4_0",
	"tiny-phi3-q8_0", "tiny-bitnet-tq2_0", "tiny-bitnet-tq1_0",
}

// Testdata is the repository's testdata directory, found from this
// source file so that any package's tests can use it.
func Testdata() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata")
}

// Load opens fixture model name and loads it with opts (Backend from nb
// when nb is not nil); both are closed when t ends.
func Load(t testing.TB, name string, nb NewBackend, opts engine.Options) (*engine.Engine, *gguf.File) {
	t.Helper()
	return LoadPath(t, filepath.Join(Testdata(), "models", name+".gguf"), nb, opts)
}

// LoadPath is Load for the model file at path, such as one that package
// gen wrote.
func LoadPath(t testing.TB, path string, nb NewBackend, opts engine.Options) (*engine.Engine, *gguf.File) {
	t.Helper()
	f, err := gguf.OpenPath(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if nb != nil {
		opts.Backend = nb(t)
	}
	e, err := engine.Load(context.Background(), f, opts)
	if err != nil {
		t.Fatalf("load %s: %v", strings.TrimSuffix(filepath.Base(path), ".gguf"), err)
	}
	t.Cleanup(func() { e.Close() })
	return e, f
}

// Refs loads llama.cpp's reference and the float64 reference of a model.
func Refs(t testing.TB, name string) (llama, exact *refcheck.File) {
	t.Helper()
	var err error
	if llama, err = refcheck.Load(filepath.Join(Testdata(), "ref", name+".ref.json")); err != nil {
		t.Fatal(err)
	}
	if exact, err = refcheck.Load(filepath.Join(Testdata(), "ref", name+".exact.json")); err != nil {
		t.Fatal(err)
	}
	return llama, exact
}

// recorder is a greedy sampler that keeps the logits of every step.
type recorder struct {
	toks []int32
	rows [][]float32
}

// Sample records the logits row and picks greedily.
func (r *recorder) Sample(l []float32) (int32, error) {
	r.rows = append(r.rows, append([]float32(nil), l...))
	tok, err := engine.Greedy{}.Sample(l)
	r.toks = append(r.toks, tok)
	return tok, err
}

// Fixtures judges every model in models (FixtureModels if nil) and every
// prompt of its reference: our tokenizer's prompt ids equal llama.cpp's;
// teacher-forced logits pass refcheck's rule against the float64
// reference with llama.cpp's own tolerance; the greedy continuation equals
// llama.cpp's up to a near tie and the float64 reference's up to 1e-3.
// A micro-batch of ubatch tokens (64 if 0) makes long prompts span several
// prefill steps.
func Fixtures(t *testing.T, nb NewBackend, models []string, ubatch int) {
	if models == nil {
		models = FixtureModels
	}
	if ubatch == 0 {
		ubatch = 64
	}
	for _, name := range models {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fixture(t, nb, name, ubatch)
		})
	}
}

func fixture(t *testing.T, nb NewBackend, name string, ubatch int) {
	llama, exact := Refs(t, name)
	tol, err := refcheck.ComputeTolerance(llama, exact)
	if err != nil {
		t.Fatal(err)
	}
	e, f := Load(t, name, nb, engine.Options{NCtx: 512, NUbatch: ubatch})
	tok, err := tokenizer.FromGGUF(f)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rep := refcheck.Report{Tol: tol}
	for pi, p := range exact.Prompts {
		if !equalIDs(p.IDs, llama.Prompts[pi].IDs) {
			t.Fatalf("prompt %d: exact and llama.cpp ids differ", pi)
		}
		if ids, err := tok.Encode(p.Prompt, true, true); err != nil || !equalIDs(ids, p.IDs) {
			t.Errorf("prompt %d: our tokenizer gives %v (%v), llama.cpp %v", pi, ids, err, p.IDs)
		}
		e.Reset()
		logits, err := e.Eval(ctx, p.IDs, engine.LogitsAll)
		if err != nil {
			t.Fatal(err)
		}
		rep.Check(pi, p, logits)

		e.Reset()
		var rec recorder
		want := llama.Prompts[pi].Greedy
		if err := e.Generate(ctx, p.IDs, len(want), &rec, func(int32) bool { return true }); err != nil {
			t.Fatal(err)
		}
		at, err := refcheck.Greedy(rec.toks, rec.rows, want, tol.Logit)
		if err != nil {
			t.Errorf("prompt %d: %v", pi, err)
		}
		// Against the float64 greedy the margin is our own deviation from
		// exact (~1e-5 on the CPU backend), not llama.cpp's: allow 1e-3.
		atExact, err := refcheck.Greedy(rec.toks, rec.rows, p.Greedy, 1e-3)
		if err != nil {
			t.Errorf("prompt %d vs float64 greedy: %v", pi, err)
		}
		if at < len(want) {
			t.Logf("prompt %d: greedy diverges from llama.cpp at step %d of %d at a near tie; from float64 at step %d; llama.cpp from float64 at step %d",
				pi, at, len(want), atExact, firstDiff(want, p.Greedy))
		}
	}
	t.Logf("%s: tol %.4f (llama.cpp dev %.4f, lse dev %.4f, %d ids missing); ours: max dev %.5f, lse dev %.5f; top-1 %d/%d, near ties %d, positions %d",
		name, tol.Logit, tol.LlamaDev, tol.LlamaLSEDev, tol.Missing, rep.MaxDev, rep.MaxLSEDev, rep.Top1Equal, rep.Top1Checked, rep.NearTies, rep.Positions)
	for _, f := range rep.Failures {
		t.Error(f)
	}
	if rep.Positions == 0 || rep.Top1Checked == 0 {
		t.Error("nothing was checked")
	}
}

func equalIDs(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func firstDiff(a, b []int32) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
