package engine_test

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/enginetest"
	"github.com/webgguf/webgguf/engine/refcheck"
	"github.com/webgguf/webgguf/sample"
)

func newSession(t *testing.T, e *engine.Engine, o engine.SessionOptions) *engine.Session {
	t.Helper()
	s, err := engine.NewSession(e, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSessionGreedyMatchesLlamaCpp: a session's greedy tokens are the
// fixtures' (libllama's) 32-token greedy continuations, prompt after
// prompt on one session (each request replaces the context).
func TestSessionGreedyMatchesLlamaCpp(t *testing.T) {
	ref, err := refcheck.Load(filepath.Join(enginetest.Testdata(), "ref", "tiny-llama-q8_0.ref.json"))
	if err != nil {
		t.Fatal(err)
	}
	e := loadFixture(t, "tiny-llama-q8_0", engine.Options{NCtx: 512})
	s := newSession(t, e, engine.SessionOptions{EOG: []int32{}})
	for pi, p := range ref.Prompts {
		if len(p.Greedy) == 0 {
			continue
		}
		res, err := s.Generate(context.Background(), engine.GenerateRequest{Prompt: p.IDs, MaxTokens: len(p.Greedy)})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Tokens, p.Greedy) {
			t.Errorf("prompt %d: %v, llama.cpp %v", pi, res.Tokens, p.Greedy)
		}
		if want := append(slices.Clone(p.IDs), p.Greedy[:len(p.Greedy)-1]...); !slices.Equal(s.Tokens(), want) {
			t.Errorf("prompt %d: the session holds %d tokens, want the prompt and all but the last new one (%d)", pi, len(s.Tokens()), len(want))
		}
	}
}

// TestSessionSamplerMatchesEngine: with a sampler chain (penalties, so
// the chain runs) a session draws what Engine.Generate draws from a
// sampler that was shown the prompt, the protocol the CLI and the worker
// each wrote out before; a second request reuses the common prefix and
// equals a fresh evaluation.
func TestSessionSamplerMatchesEngine(t *testing.T) {
	e, _ := enginetest.Load(t, "gotiny-q4_k_m", nil, engine.Options{NCtx: 256})
	tok, err := e.Tokenizer()
	if err != nil {
		t.Fatal(err)
	}
	p := sample.Defaults()
	p.Temperature, p.Seed, p.RepeatPenalty = 0.9, 11, 1.1
	newSampler := func() *sample.Sampler {
		sm, err := sample.New(e.Config().NVocab, p)
		if err != nil {
			t.Fatal(err)
		}
		return sm
	}
	a, _ := tok.Encode("func main() {\n\tfmt.Println(", true, true)
	b := append(slices.Clone(a), 42, 7, 99)

	direct := func(ids []int32) []int32 {
		e.Reset()
		sm := newSampler()
		for _, id := range ids {
			if err := sm.Accept(id); err != nil {
				t.Fatal(err)
			}
		}
		var out []int32
		if err := e.Generate(context.Background(), ids, 24, sm, func(t int32) bool { out = append(out, t); return true }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	wantA, wantB := direct(a), direct(b)

	s := newSession(t, e, engine.SessionOptions{EOG: []int32{}})
	sm := newSampler()
	ra, err := s.Generate(context.Background(), engine.GenerateRequest{Prompt: a, MaxTokens: 24, Sampler: sm})
	if err != nil {
		t.Fatal(err)
	}
	rb, err := s.Generate(context.Background(), engine.GenerateRequest{Prompt: b, MaxTokens: 24, Sampler: sm})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ra.Tokens, wantA) || !slices.Equal(rb.Tokens, wantB) {
		t.Fatalf("session %v then %v, engine %v then %v", ra.Tokens, rb.Tokens, wantA, wantB)
	}
	if rb.Reused != len(a) {
		t.Errorf("second request reused %d tokens, want the %d of the first prompt", rb.Reused, len(a))
	}
}

// TestSessionStopsAndEOG: a stop string ends the text before it; an
// end-of-generation token ends the generation with FinishStop.
func TestSessionStopsAndEOG(t *testing.T) {
	e, _ := enginetest.Load(t, "gotiny-q4_k_m", nil, engine.Options{NCtx: 256})
	tok, _ := e.Tokenizer()
	prompt, _ := tok.Encode("func add(a, b int) int {\n", true, true)
	s := newSession(t, e, engine.SessionOptions{EOG: []int32{}})
	free, err := s.Generate(context.Background(), engine.GenerateRequest{Prompt: prompt, MaxTokens: 24})
	if err != nil {
		t.Fatal(err)
	}
	if free.Finish != engine.FinishLength || len(free.Tokens) != 24 {
		t.Fatalf("unbounded run: %d tokens, finish %q", len(free.Tokens), free.Finish)
	}
	i := strings.Index(free.Text, "\n")
	if i < 0 {
		t.Skipf("no newline in %q to stop at", free.Text)
	}
	var streamed strings.Builder
	stopped, err := s.Generate(context.Background(), engine.GenerateRequest{Prompt: prompt, MaxTokens: 24, Stop: []string{"\n"},
		OnToken: func(_ int32, text string) error { streamed.WriteString(text); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if stopped.Finish != engine.FinishStop || stopped.Text != free.Text[:i] || streamed.String() != stopped.Text {
		t.Fatalf("stop at newline: finish %q, text %q (streamed %q), want %q", stopped.Finish, stopped.Text, streamed.String(), free.Text[:i])
	}
	// The third token as end of generation.
	eog := newSession(t, e, engine.SessionOptions{EOG: []int32{free.Tokens[2]}})
	r, err := eog.Generate(context.Background(), engine.GenerateRequest{Prompt: prompt, MaxTokens: 24})
	if err != nil {
		t.Fatal(err)
	}
	if r.Finish != engine.FinishStop || !slices.Equal(r.Tokens, free.Tokens[:3]) {
		t.Fatalf("EOG %d: %v finish %q, want %v", free.Tokens[2], r.Tokens, r.Finish, free.Tokens[:3])
	}
}

// TestSessionShiftFollowsLlamaCppLoop: a session with ContextShift gives
// the tokens of llama.cpp's generation loop (tools/main), written out on
// the engine by enginetest.ShiftLoop. Several shifts happen; the context
// never exceeds n_ctx.
func TestSessionShiftFollowsLlamaCppLoop(t *testing.T) {
	const nctx, nkeep, n = 48, 5, 150
	e := loadFixture(t, "tiny-llama-q8_0", engine.Options{NCtx: nctx, NUbatch: 16})
	prompt := []int32{1, 450, 1996, 3354, 1701, 432, 1204, 975, 278, 2366, 1203, 29}
	want := enginetest.ShiftLoop(t, e, prompt, nctx, nkeep, n)
	s := newSession(t, e, engine.SessionOptions{ContextShift: true, NKeep: nkeep, EOG: []int32{}})
	res, err := s.Generate(context.Background(), engine.GenerateRequest{Prompt: prompt, MaxTokens: n})
	if err != nil {
		t.Fatal(err)
	}
	if res.Shifts < 3 {
		t.Fatalf("%d shifts in %d tokens through %d positions", res.Shifts, n, nctx)
	}
	if !slices.Equal(res.Tokens, want) {
		t.Fatalf("session %v\nllama.cpp's loop %v", res.Tokens, want)
	}
	if got := s.Tokens(); len(got) >= nctx || !slices.Equal(got[:nkeep], prompt[:nkeep]) {
		t.Fatalf("session holds %d tokens starting %v", len(got), got[:min(len(got), nkeep)])
	}
}

// TestSessionLongChatShiftsWithFlatMemory: 150 appended turns through a
// 64-position context run to the end with context shift on; the backend's
// memory does not move and the Go heap stays flat; with shift off the same
// chat ends in a typed *ContextFullError.
func TestSessionLongChatShiftsWithFlatMemory(t *testing.T) {
	e := loadFixture(t, "tiny-llama-q8_0", engine.Options{NCtx: 64, NUbatch: 16})
	turn := func(i int) []int32 { return []int32{int32(100 + i%50), int32(2000 + i%300), 13} }
	s := newSession(t, e, engine.SessionOptions{ContextShift: true, NKeep: 4, EOG: []int32{}})
	if _, err := s.Generate(context.Background(), engine.GenerateRequest{Prompt: []int32{1, 450, 1996, 3354}, MaxTokens: 1}); err != nil {
		t.Fatal(err)
	}
	backend := e.Info().BackendBytes
	var heap [2]uint64
	shifts := 0
	for i := range 150 {
		res, err := s.Generate(context.Background(), engine.GenerateRequest{Prompt: turn(i), Append: true, MaxTokens: 6})
		if err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
		shifts += res.Shifts
		if len(s.Tokens()) >= 64 || e.Info().BackendBytes != backend {
			t.Fatalf("turn %d: %d tokens held, backend %d bytes (was %d)", i, len(s.Tokens()), e.Info().BackendBytes, backend)
		}
		if i == 30 || i == 149 {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			heap[i/149] = ms.HeapAlloc
		}
	}
	if shifts < 25 {
		t.Fatalf("only %d shifts in 150 turns", shifts)
	}
	if heap[1] > heap[0]+1<<20 {
		t.Fatalf("heap grew from %d to %d bytes between turns 30 and 150", heap[0], heap[1])
	}

	off := newSession(t, e, engine.SessionOptions{EOG: []int32{}})
	var full *engine.ContextFullError
	for i := range 150 {
		_, err := off.Generate(context.Background(), engine.GenerateRequest{Prompt: turn(i), Append: true, MaxTokens: 6})
		if errors.As(err, &full) {
			return
		}
		if err != nil {
			t.Fatalf("turn %d without shift: %v", i, err)
		}
	}
	t.Fatal("150 turns through 64 positions without shift never filled the context")
}
