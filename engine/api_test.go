package engine_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/enginetest"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model/modeltest"
)

func smallEngine(t *testing.T, opts engine.Options) *engine.Engine {
	t.Helper()
	f, err := modeltest.Open(modeltest.Spec{Arch: "llama", NEmbd: 64, NLayer: 2, NFF: 96, NVocab: 50, NHead: 4, NHeadKV: 2, HeadDim: 16, Type: gguf.TypeQ8_0, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Load(context.Background(), f, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func TestContextFullIsTypedAndHarmless(t *testing.T) {
	e := smallEngine(t, engine.Options{NCtx: 8, NUbatch: 4})
	ctx := context.Background()
	before, err := e.Eval(ctx, []int32{1, 2, 3, 4, 5, 6}, engine.LogitsLast)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Eval(ctx, []int32{7, 8, 9}, engine.LogitsLast)
	var full *engine.ContextFullError
	if !errors.As(err, &full) || full.NCtx != 8 || full.Pos != 6 || full.Need != 3 {
		t.Fatalf("got %v, want ContextFullError{8, 6, 3}", err)
	}
	if e.Pos() != 6 {
		t.Fatalf("pos %d after refused eval, want 6", e.Pos())
	}
	// The cache is intact: the last two positions still evaluate, and a
	// fresh run of all eight agrees with the first six's logits.
	if _, err := e.Eval(ctx, []int32{7, 8}, engine.LogitsLast); err != nil {
		t.Fatal(err)
	}
	e.Reset()
	all, err := e.Eval(ctx, []int32{1, 2, 3, 4, 5, 6, 7, 8}, engine.LogitsAll)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range before[0] {
		if math.Abs(float64(all[5][i]-v)) > 1e-4 {
			t.Fatalf("logit %d after reset %v, before %v", i, all[5][i], v)
		}
	}
}

func TestBadTokenIsTypedError(t *testing.T) {
	e := smallEngine(t, engine.Options{NCtx: 8})
	for _, id := range []int32{-1, 50, 1 << 30} {
		if _, err := e.Eval(context.Background(), []int32{1, id}, engine.LogitsAll); !errors.Is(err, compute.ErrBadStep) {
			t.Errorf("token %d: got %v, want ErrBadStep", id, err)
		}
	}
	if e.Pos() != 0 {
		t.Errorf("pos %d after refused evals", e.Pos())
	}
}

func TestCancelStopsEvalAndGenerate(t *testing.T) {
	e := smallEngine(t, engine.Options{NCtx: 64})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Eval(ctx, []int32{1, 2, 3}, engine.LogitsLast); !errors.Is(err, context.Canceled) {
		t.Errorf("eval: got %v, want context.Canceled", err)
	}
	e.Reset()
	ctx, cancel = context.WithCancel(context.Background())
	n := 0
	err := e.Generate(ctx, []int32{1, 2}, 20, engine.Greedy{}, func(int32) bool {
		n++
		if n == 3 {
			cancel()
		}
		return true
	})
	if !errors.Is(err, context.Canceled) || n != 3 {
		t.Errorf("generate: %d tokens, err %v; want 3 and context.Canceled", n, err)
	}
}

func TestGenerateStopsWhenCallbackSaysSo(t *testing.T) {
	e := smallEngine(t, engine.Options{NCtx: 64})
	var got []int32
	err := e.Generate(context.Background(), []int32{1, 2}, 10, engine.Greedy{}, func(tok int32) bool {
		got = append(got, tok)
		return len(got) < 4
	})
	if err != nil || len(got) != 4 {
		t.Fatalf("%d tokens, err %v; want 4", len(got), err)
	}
	// Prompt + 3 fed-back tokens; the 4th was never evaluated.
	if e.Pos() != 5 {
		t.Errorf("pos %d, want 5", e.Pos())
	}
}

func TestLoadReportsProgressAndMemory(t *testing.T) {
	var last, total int64
	calls := 0
	e := smallEngine(t, engine.Options{NCtx: 16, Progress: func(done, tot int64) {
		if done < last || done > tot {
			t.Errorf("progress %d/%d after %d", done, tot, last)
		}
		last, total = done, tot
		calls++
	}})
	info := e.Info()
	if calls == 0 || last != total || total != info.Plan.WeightBytes {
		t.Errorf("progress ended at %d/%d after %d calls; weights %d bytes", last, total, calls, info.Plan.WeightBytes)
	}
	// 2 layers × (K+V) × 2 kv heads × 16 dims × 16 positions × 4 bytes
	if info.Plan.KVBytes != 2*2*2*16*16*4 {
		t.Errorf("KV bytes %d", info.Plan.KVBytes)
	}
	// The backend holds the plan minus the host logits buffer, plus
	// per-thread scratch.
	p := info.Plan
	if info.Backend != "cpu" || info.BackendBytes < p.WeightBytes+p.KVBytes+p.ArenaBytes {
		t.Errorf("info %+v", info)
	}
}

func TestLoadCancelled(t *testing.T) {
	f, err := modeltest.Open(modeltest.Spec{Arch: "llama", NEmbd: 64, NLayer: 2, NFF: 96, NVocab: 50, NHead: 4, NHeadKV: 2, HeadDim: 16, Type: gguf.TypeQ8_0, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := engine.Load(ctx, f, engine.Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

func TestMemoryPlanOverLimitIsTypedAndAllocatesNothing(t *testing.T) {
	f, err := modeltest.Open(modeltest.Spec{Arch: "llama", NEmbd: 64, NLayer: 2, NFF: 96, NVocab: 50, NHead: 4, NHeadKV: 2, HeadDim: 16, Type: gguf.TypeQ8_0, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	var loaded int64
	_, err = engine.Load(context.Background(), f, engine.Options{NCtx: 1 << 20, MemoryLimit: 1 << 20, Progress: func(d, _ int64) { loaded = d }})
	var me *engine.MemoryError
	if !errors.As(err, &me) || me.Limit != 1<<20 || me.Plan.KVBytes != 2*2*2*16*(1<<20)*4 {
		t.Fatalf("got %v, want MemoryError with the KV plan", err)
	}
	if loaded != 0 {
		t.Errorf("%d weight bytes loaded before the plan was refused", loaded)
	}
}

func TestTokenizerComesWithTheEngine(t *testing.T) {
	e := loadFixture(t, "tiny-qwen3-q8_0", engine.Options{NCtx: 64})
	tok, err := e.Tokenizer()
	if err != nil {
		t.Fatal(err)
	}
	llama, _ := enginetest.Refs(t, "tiny-qwen3-q8_0")
	p := llama.Prompts[0]
	ids, err := tok.Encode(p.Prompt, true, true)
	if err != nil || len(ids) != len(p.IDs) {
		t.Fatalf("ids %v (%v), llama.cpp %v", ids, err, p.IDs)
	}
	for i := range ids {
		if ids[i] != p.IDs[i] {
			t.Fatalf("ids %v, llama.cpp %v", ids, p.IDs)
		}
	}
}

func TestTruncateReusesPrefix(t *testing.T) {
	e := smallEngine(t, engine.Options{NCtx: 16, NUbatch: 4})
	ctx := context.Background()
	if _, err := e.Eval(ctx, []int32{1, 2, 3, 4, 5}, engine.LogitsNone); err != nil {
		t.Fatal(err)
	}
	if err := e.Truncate(2); err != nil {
		t.Fatal(err)
	}
	reused, err := e.Eval(ctx, []int32{9, 8, 7}, engine.LogitsLast)
	if err != nil {
		t.Fatal(err)
	}
	e.Reset()
	fresh, err := e.Eval(ctx, []int32{1, 2, 9, 8, 7}, engine.LogitsLast)
	if err != nil {
		t.Fatal(err)
	}
	for i := range fresh[0] {
		if math.Abs(float64(fresh[0][i]-reused[0][i])) > 1e-4 {
			t.Fatalf("logit %d: %v after truncation, %v fresh", i, reused[0][i], fresh[0][i])
		}
	}
	var oe *engine.OptionError
	if err := e.Truncate(6); !errors.As(err, &oe) {
		t.Errorf("truncate past the end: %v", err)
	}
}

// TestEvalArgmaxEqualsArgmaxOfLogits checks the device-side greedy path
// (compute.ArgmaxProgram on the CPU backend) against the argmax of the
// logits row, over a multi-chunk prompt and several decode steps.
func TestEvalArgmaxEqualsArgmaxOfLogits(t *testing.T) {
	a := smallEngine(t, engine.Options{NCtx: 32, NUbatch: 4})
	b := smallEngine(t, engine.Options{NCtx: 32, NUbatch: 4})
	ctx := context.Background()
	ids := []int32{3, 1, 4, 1, 5, 9, 2}
	for step := range 6 {
		got, err := a.EvalArgmax(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		l, err := b.Eval(ctx, ids, engine.LogitsLast)
		if err != nil {
			t.Fatal(err)
		}
		if want := int32(engine.Argmax(l[0])); got != want || a.Pos() != b.Pos() {
			t.Fatalf("step %d: argmax %d at pos %d, logits say %d at pos %d", step, got, a.Pos(), want, b.Pos())
		}
		ids = []int32{got}
	}
}

// spySampler is a CandidateSampler that counts which entry point ran.
type spySampler struct{ rows, cands int }

func (s *spySampler) Sample(l []float32) (int32, error) {
	s.rows++
	return int32(engine.Argmax(l)), nil
}
func (s *spySampler) Candidates() int { return 4 }
func (s *spySampler) SampleCandidates(ids []int32, _ []float32) (int32, error) {
	s.cands++
	return ids[0], nil
}

// TestTopKNeedsBackendSupport: on a backend without top-k selection (the
// CPU), EvalTopK is a typed error that leaves the context as it was, and
// Generate with a CandidateSampler samples whole rows.
func TestTopKNeedsBackendSupport(t *testing.T) {
	e := smallEngine(t, engine.Options{NCtx: 32, NUbatch: 4})
	ctx := context.Background()
	var oe *engine.OptionError
	if err := e.EvalTopK(ctx, []int32{3, 1, 4}, make([]int32, 4), make([]float32, 4)); !errors.As(err, &oe) || e.Pos() != 0 {
		t.Fatalf("EvalTopK on the CPU: %v, pos %d", err, e.Pos())
	}
	s := &spySampler{}
	if err := e.Generate(ctx, []int32{3, 1, 4}, 5, s, func(int32) bool { return true }); err != nil {
		t.Fatal(err)
	}
	if s.rows != 5 || s.cands != 0 {
		t.Fatalf("%d row draws, %d candidate draws; want 5, 0", s.rows, s.cands)
	}
}
