package gpu_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/enginetest"
	"github.com/webgguf/webgguf/engine/refcheck"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/internal/longtest"
	"github.com/webgguf/webgguf/model/modeltest"
)

// loadGPU loads f onto a fresh GPU backend.
func loadGPU(t *testing.T, f *gguf.File, nCtx int) *engine.Engine {
	t.Helper()
	e, err := engine.Load(context.Background(), f, engine.Options{NCtx: nCtx, NUbatch: 32, Backend: gpu.New(device(t))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// generate runs Generate with Greedy (pipelined on this backend) and
// returns the tokens, stopping after stop tokens when stop > 0.
func generate(ctx context.Context, e *engine.Engine, prompt []int32, n, stop int) ([]int32, error) {
	var got []int32
	err := e.Generate(ctx, prompt, n, engine.Greedy{}, func(tok int32) bool {
		got = append(got, tok)
		return stop <= 0 || len(got) < stop
	})
	return got, err
}

// unpipelined is greedy generation one blocking step at a time
// (EvalArgmax: submit, wait for the token, then the next step).
func unpipelined(ctx context.Context, e *engine.Engine, prompt []int32, n int) ([]int32, error) {
	var got []int32
	ids := prompt
	for range n {
		tok, err := e.EvalArgmax(ctx, ids)
		if err != nil {
			return got, err
		}
		got = append(got, tok)
		ids = []int32{tok}
	}
	return got, nil
}

func equal(a, b []int32) bool {
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

// TestPipelinedGreedyMatchesLlamaCpp: Generate with Greedy on the GPU
// (steps fed their token on the GPU, one step ahead of the host) gives
// llama.cpp's greedy continuation on fixtures (refcheck's near-tie rule,
// judged on our teacher-forced logits) and exactly the tokens and the
// position of blocking greedy decoding.
//
// It runs at the default settings (natively: readback batch 1, 2 steps in
// flight) and with batched readbacks (SetReadbackBatch): batch 3 at its
// default depth (5) and batch 4 at depth 5, where the first token is read
// alone and the last batch is partial; there it also checks that the
// tokens came back through exactly one map per batch. The defaults run on
// both fixtures, each batched setting on one (on both with the long tag).
func TestPipelinedGreedyMatchesLlamaCpp(t *testing.T) {
	both := []string{"tiny-llama-q8_0", "tiny-qwen3-q8_0"}
	for _, c := range []struct {
		cf     pipeConf
		models []string
	}{{pipeConf{}, both}, {pipeConf{batch: 3}, both[:1]}, {pipeConf{depth: 5, batch: 4}, both[1:]}} {
		if longtest.Enabled {
			c.models = both
		}
		for _, name := range c.models {
			t.Run(c.cf.String()+"/"+name, func(t *testing.T) { testMatchesLlamaCpp(t, name, c.cf) })
		}
	}
}

// pipeConf is a greedy pipeline's setting: SetPipelineDepth(depth) and
// SetReadbackBatch(batch) (0: the default).
type pipeConf struct{ depth, batch int }

func (c pipeConf) String() string {
	return fmt.Sprintf("depth%d_batch%d", c.depth, c.batch)
}

// backend makes GPU backends with this setting.
func (c pipeConf) backend(t testing.TB) compute.Backend {
	b := gpu.New(device(t))
	b.SetPipelineDepth(c.depth)
	b.SetReadbackBatch(c.batch)
	return b
}

// maps returns how many readback maps the test device started so far.
func maps(t testing.TB) uint64 { return device(t).Stats().Maps }

func testMatchesLlamaCpp(t *testing.T, name string, cf pipeConf) {
	llama, exact := enginetest.Refs(t, name)
	tol, err := refcheck.ComputeTolerance(llama, exact)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := enginetest.Load(t, name, cf.backend, engine.Options{NCtx: 128, NUbatch: 32})
	ctx := context.Background()
	for pi := range 3 {
		p, want := llama.Prompts[pi].IDs, llama.Prompts[pi].Greedy
		e.Reset()
		m0 := maps(t)
		got, err := generate(ctx, e, p, len(want), 0)
		if err != nil {
			t.Fatal(err)
		}
		if e.Pos() != len(p)+len(want)-1 {
			t.Errorf("prompt %d: position %d after %d tokens, want %d", pi, e.Pos(), len(want), len(p)+len(want)-1)
		}
		// The first token is read alone, the others in batches, the
		// last one partial (flushed when read); the prompt's
		// evaluation reads nothing back.
		if b := max(cf.batch, 1); maps(t)-m0 != uint64(1+(len(want)-1+b-1)/b) {
			t.Errorf("prompt %d: %d readback maps for %d tokens at batch %d, want %d", pi, maps(t)-m0, len(want), b, 1+(len(want)-1+b-1)/b)
		}
		e.Reset()
		ref, err := unpipelined(ctx, e, p, len(want))
		if err != nil {
			t.Fatal(err)
		}
		if !equal(got, ref) {
			t.Errorf("prompt %d: pipelined %v, blocking %v", pi, got, ref)
		}
		e.Reset()
		rows, err := e.Eval(ctx, append(append([]int32(nil), p...), got[:len(got)-1]...), engine.LogitsAll)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := refcheck.Greedy(got, rows[len(p)-1:], want, tol.Logit); err != nil {
			t.Errorf("prompt %d: %v", pi, err)
		} else if n < len(want) {
			t.Logf("prompt %d: equal to llama.cpp for %d tokens, then a near tie", pi, n)
		}
	}
}

// TestPipelinedGreedyGeneratedModels compares pipelined and blocking
// greedy decoding token for token on generated shapes (GQA 2, 4 and 8,
// head 128, biases, q/k norms), across the short/long attention threshold.
func TestPipelinedGreedyGeneratedModels(t *testing.T) {
	for _, i := range []int{1, 4, 5, 6} {
		s := enginetest.ShapeSpecs[i]
		s.Seed = uint64(i + 21)
		t.Run(fmt.Sprintf("%s_h%d_kv%d_%s", s.Arch, s.NHead, s.NHeadKV, s.Type), func(t *testing.T) {
			f, err := modeltest.Open(s)
			if err != nil {
				t.Fatal(err)
			}
			e := loadGPU(t, f, 160)
			prompt := []int32{int32(3 % s.NVocab), int32(99 % s.NVocab), int32(41 % s.NVocab)}
			ctx := context.Background()
			got, err := generate(ctx, e, prompt, 70, 0)
			if err != nil {
				t.Fatal(err)
			}
			e.Reset()
			ref, err := unpipelined(ctx, e, prompt, 70)
			if err != nil {
				t.Fatal(err)
			}
			if !equal(got, ref) {
				t.Errorf("pipelined %v\nblocking  %v", got, ref)
			}
		})
	}
}

// TestPipelinedGreedyStopContinueAndContextFull: a stop learned one step
// late leaves the position exact (the step submitted in vain is not
// counted), so continuing from the last token gives what one uninterrupted
// run gives; running into the cache's end is ContextFullError at the
// same token as blocking decoding.
// It runs at the default depth (2 steps in flight), at a deep one
// (SetPipelineDepth(6): five steps submitted in vain at a stop), and with
// batched readbacks of 3 (depth 5) and 4 (depth 5), where the stops after
// 3 and 7 tokens fall inside a batch (the first token is read alone, then
// batches of steps 1-3/1-4, 4-6/5-8, ...), the steps after a stop are
// discarded by the continuation's first step (a new sequence), and the
// cache's end and n cut the last batch short.
func TestPipelinedGreedyStopContinueAndContextFull(t *testing.T) {
	for _, cf := range []pipeConf{{depth: 2}, {depth: 6}, {batch: 3}, {depth: 5, batch: 4}} {
		t.Run(cf.String(), func(t *testing.T) { testStopContinueAndContextFull(t, cf) })
	}
}

func testStopContinueAndContextFull(t *testing.T, cf pipeConf) {
	llama, _ := enginetest.Refs(t, "tiny-llama-q8_0")
	e, _ := enginetest.Load(t, "tiny-llama-q8_0", cf.backend, engine.Options{NCtx: 48, NUbatch: 16})
	ctx := context.Background()
	p := llama.Prompts[0].IDs
	full, err := generate(ctx, e, p, 30, 0)
	if err != nil {
		t.Fatal(err)
	}
	e.Reset()
	ref30, err := unpipelined(ctx, e, p, 30)
	if err != nil || !equal(full, ref30) {
		t.Fatalf("pipelined %v, blocking %v (%v)", full, ref30, err)
	}
	for _, stop := range []int{1, 2, 3, 7} {
		e.Reset()
		head, err := generate(ctx, e, p, 30, stop)
		if err != nil {
			t.Fatal(err)
		}
		if !equal(head, full[:stop]) || e.Pos() != len(p)+stop-1 {
			t.Fatalf("stop after %d: %v at position %d, want %v at %d", stop, head, e.Pos(), full[:stop], len(p)+stop-1)
		}
		tail, err := generate(ctx, e, head[stop-1:], 30-stop, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !equal(tail, full[stop:]) || e.Pos() != len(p)+29 {
			t.Errorf("continued after %d: %v at position %d, want %v at %d", stop, tail, e.Pos(), full[stop:], len(p)+29)
		}
	}

	// The cache holds 48 positions: the prompt and 48-len(p) steps fit.
	long := append(append([]int32(nil), p...), full...)[:34]
	e.Reset()
	got, err := generate(ctx, e, long, 20, 0)
	var full48 *engine.ContextFullError
	if !errors.As(err, &full48) || e.Pos() != 48 {
		t.Fatalf("past the cache: %v at position %d, want ContextFullError at 48", err, e.Pos())
	}
	e.Reset()
	ref, refErr := unpipelined(ctx, e, long, 20)
	if !errors.As(refErr, &full48) || !equal(got, ref) || len(got) != 48-len(long)+1 {
		t.Errorf("past the cache: pipelined %v, blocking %v (%v), want %d tokens", got, ref, refErr, 48-len(long)+1)
	}
}

// TestPipelinedGreedyCancel cancels generation midway: the error is the
// context's, the position counts exactly the tokens delivered, and the
// step left in flight neither blocks nor shifts the next generation. With
// batched readbacks the cancel after the 4th token falls inside a batch,
// and one after the 18th of 20 comes when every step was submitted and
// the tokens left may already be on the host: none is delivered.
func TestPipelinedGreedyCancel(t *testing.T) {
	for _, cf := range []pipeConf{{depth: 2}, {depth: 6}, {batch: 3}, {depth: 5, batch: 4}} {
		t.Run(cf.String(), func(t *testing.T) { testCancel(t, cf) })
	}
}

func testCancel(t *testing.T, cf pipeConf) {
	llama, _ := enginetest.Refs(t, "tiny-llama-q8_0")
	e, _ := enginetest.Load(t, "tiny-llama-q8_0", cf.backend, engine.Options{NCtx: 64, NUbatch: 16})
	p := llama.Prompts[0].IDs
	full, err := generate(context.Background(), e, p, 20, 0)
	if err != nil {
		t.Fatal(err)
	}
	e.Reset()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []int32
	err = e.Generate(ctx, p, 20, engine.Greedy{}, func(tok int32) bool {
		got = append(got, tok)
		if len(got) == 4 {
			cancel()
		}
		return true
	})
	if !errors.Is(err, context.Canceled) || !equal(got, full[:4]) || e.Pos() != len(p)+3 {
		t.Fatalf("cancelled: %v, %v at position %d; want context.Canceled, %v at %d", err, got, e.Pos(), full[:4], len(p)+3)
	}
	tail, err := generate(context.Background(), e, got[3:], 16, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !equal(tail, full[4:]) {
		t.Errorf("after the cancel: %v, want %v", tail, full[4:])
	}
	// Cancelled after the 18th of 20 tokens: the steps are all submitted.
	e.Reset()
	ctx3, cancel3 := context.WithCancel(context.Background())
	defer cancel3()
	got = got[:0]
	err = e.Generate(ctx3, p, 20, engine.Greedy{}, func(tok int32) bool {
		got = append(got, tok)
		if len(got) == 18 {
			cancel3()
		}
		return true
	})
	if !errors.Is(err, context.Canceled) || !equal(got, full[:18]) || e.Pos() != len(p)+17 {
		t.Fatalf("cancelled near the end: %v, %d tokens at position %d; want context.Canceled, 18 at %d", err, len(got), e.Pos(), len(p)+17)
	}
	// A blocking step after an abandoned pipeline also reads its own token.
	e.Reset()
	ctx2, cancel2 := context.WithCancel(context.Background())
	n := 0
	_ = e.Generate(ctx2, p, 20, engine.Greedy{}, func(int32) bool { n++; cancel2(); return true })
	tok, err := e.EvalArgmax(context.Background(), full[:1])
	if err != nil || tok != full[1] {
		t.Errorf("EvalArgmax after a cancelled pipeline: %d, %v; want %d", tok, err, full[1])
	}
}

// TestPipelinerMisuse: a fed step needs an argmax step before it on the
// same program, and at most ArgmaxDepth steps are in flight (two by
// default).
func TestPipelinerMisuse(t *testing.T) {
	b, p, cfg := compileDecode(t, "tiny-llama-q8_0", 64)
	pl := p.(gpu.Pipeliner)
	ctx := context.Background()
	step := func(pos int) compute.Step {
		return compute.Step{Pos0: pos, Tokens: []int32{1}, OutRows: []int32{0}}
	}
	if err := pl.SubmitArgmax(ctx, step(0), true); !errors.Is(err, compute.ErrBadStep) {
		t.Errorf("fed step first: %v, want ErrBadStep", err)
	}
	logits := make([]float32, cfg.NVocab)
	if err := pl.SubmitArgmax(ctx, step(0), false); err != nil {
		t.Fatal(err)
	}
	if pl.ArgmaxDepth() != 2 {
		t.Fatalf("ArgmaxDepth %d by default, want 2", pl.ArgmaxDepth())
	}
	if err := pl.SubmitArgmax(ctx, step(1), true); err != nil {
		t.Fatal(err)
	}
	if err := pl.SubmitArgmax(ctx, step(2), true); !errors.Is(err, compute.ErrBadStep) {
		t.Errorf("third step in flight: %v, want ErrBadStep", err)
	}
	if pl.PendingArgmax() != 2 {
		t.Errorf("%d pending, want 2", pl.PendingArgmax())
	}
	// A logits step in between: the next step cannot be fed.
	if err := p.Run(ctx, step(2), logits); err != nil {
		t.Fatal(err)
	}
	if err := pl.SubmitArgmax(ctx, step(3), true); !errors.Is(err, compute.ErrBadStep) {
		t.Errorf("fed step after a logits step: %v, want ErrBadStep", err)
	}
	for range 2 {
		if _, err := pl.ReadArgmax(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := pl.ReadArgmax(ctx); err == nil {
		t.Error("read with nothing pending: no error")
	}
	// SetPipelineDepth(4): four in flight, not five.
	b.SetPipelineDepth(4)
	if pl.ArgmaxDepth() != 4 {
		t.Fatalf("ArgmaxDepth %d after SetPipelineDepth(4)", pl.ArgmaxDepth())
	}
	if err := pl.SubmitArgmax(ctx, step(4), false); err != nil {
		t.Fatal(err)
	}
	for pos := 5; pos < 8; pos++ {
		if err := pl.SubmitArgmax(ctx, step(pos), true); err != nil {
			t.Fatalf("step %d of 4 in flight: %v", pos-3, err)
		}
	}
	if err := pl.SubmitArgmax(ctx, step(8), true); !errors.Is(err, compute.ErrBadStep) {
		t.Errorf("fifth step in flight at depth 4: %v, want ErrBadStep", err)
	}
	for range 4 {
		if _, err := pl.ReadArgmax(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// TestArgmaxReadbackBatch: ArgmaxDepth follows the readback batch (B+2 by
// default, at least B+1, at most 16), and a batch set with
// SetReadbackBatch applies from the program's next sequence: at batch 4,
// six steps are in flight, the 4th starts the one map of the first
// batch, reading the 5th flushes the partial second, and the tokens are
// those of blocking steps.
func TestArgmaxReadbackBatch(t *testing.T) {
	b, p, _ := compileDecode(t, "tiny-llama-q8_0", 64)
	pl := p.(gpu.Pipeliner)
	ctx := context.Background()
	for _, c := range []struct{ depth, batch, want int }{
		{0, 0, 2}, {0, 1, 2}, {3, 0, 3}, {0, 4, 6}, {2, 4, 5}, {8, 4, 8}, {0, 20, 10}, {40, 0, 16}, {40, 8, 16},
	} {
		b.SetPipelineDepth(c.depth)
		b.SetReadbackBatch(c.batch)
		if got := pl.ArgmaxDepth(); got != c.want {
			t.Errorf("depth %d, batch %d: ArgmaxDepth %d, want %d", c.depth, c.batch, got, c.want)
		}
	}
	b.SetPipelineDepth(0)
	b.SetReadbackBatch(0)
	step := func(pos int, tok int32) compute.Step {
		return compute.Step{Pos0: pos, Tokens: []int32{tok}, OutRows: []int32{0}}
	}
	var ref []int32
	tok := int32(1)
	for pos := range 7 {
		var err error
		if tok, err = p.RunArgmax(ctx, step(pos, tok)); err != nil {
			t.Fatal(err)
		}
		ref = append(ref, tok)
	}

	b.SetReadbackBatch(4)
	if err := pl.SubmitArgmax(ctx, step(0, 1), false); err != nil {
		t.Fatal(err)
	}
	m0 := maps(t)
	for pos := 1; pos < 6; pos++ {
		if err := pl.SubmitArgmax(ctx, step(pos, 0), true); err != nil {
			t.Fatalf("step %d of 6 in flight: %v", pos+1, err)
		}
		if want := uint64(pos / 3); maps(t)-m0 != want {
			t.Fatalf("after %d steps: %d maps, want %d", pos+1, maps(t)-m0, want)
		}
	}
	if err := pl.SubmitArgmax(ctx, step(6, 0), true); !errors.Is(err, compute.ErrBadStep) {
		t.Errorf("7th step in flight at batch 4: %v, want ErrBadStep", err)
	}
	// Batch 1 from here applies to the next sequence, not this one.
	b.SetReadbackBatch(1)
	for i := range 6 {
		got, err := pl.ReadArgmax(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got != ref[i] {
			t.Fatalf("token %d: %d, want %d (blocking %v)", i, got, ref[i], ref)
		}
	}
	if maps(t)-m0 != 2 {
		t.Fatalf("%d maps for 6 tokens at batch 4, want 2 (one flushed)", maps(t)-m0)
	}
	if err := pl.SubmitArgmax(ctx, step(6, 0), true); err != nil {
		t.Fatal(err)
	}
	if maps(t)-m0 != 2 {
		t.Fatal("a map started for 1 of a batch of 4: the batch changed mid-sequence")
	}
	if got, err := pl.ReadArgmax(ctx); err != nil || got != ref[6] {
		t.Fatalf("token 6: %d, %v; want %d", got, err, ref[6])
	}
	// The next sequence maps each step at its submit.
	if err := pl.SubmitArgmax(ctx, step(0, 1), false); err != nil {
		t.Fatal(err)
	}
	if maps(t)-m0 != 4 {
		t.Fatalf("batch 1 in a new sequence: %d maps, want 4", maps(t)-m0)
	}
	if got, err := pl.ReadArgmax(ctx); err != nil || got != ref[0] {
		t.Fatalf("new sequence: %d, %v; want %d", got, err, ref[0])
	}
}
