package enginehost

import (
	"context"
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/webgguf/webgguf/chat"
	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/glue"
	"github.com/webgguf/webgguf/sample"
)

// event is one streamed token event.
type event struct {
	id   int32
	text string
}

// run generates req on h and returns the response, the streamed events and
// whether the request ran on engine.Greedy.
func run(t *testing.T, h *Host, req Request) (*glue.GenerateResponse, []event, bool) {
	t.Helper()
	before := h.greedyRuns.Load()
	var evs []event
	resp, err := h.Generate(context.Background(), req, func(id int32, s string) error {
		evs = append(evs, event{id, s})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return resp, evs, h.greedyRuns.Load() != before
}

// viaSampler is req forced onto the sampler chain by a zero logit bias,
// which changes no logit.
func viaSampler(req Request) Request {
	req.Sampling.LogitBias = map[int32]float32{0: 0}
	return req
}

// TestPlainGreedy: which sampling parameters count as plain greedy.
func TestPlainGreedy(t *testing.T) {
	d := sample.Defaults()
	set := func(f func(p *sample.Params)) sample.Params { p := d; f(&p); return p }
	for _, c := range []struct {
		name string
		p    sample.Params
		want bool
	}{
		{"defaults", d, false},
		{"temperature 0", set(func(p *sample.Params) { p.Temperature = 0 }), true},
		{"top_k 1", set(func(p *sample.Params) { p.TopK = 1 }), true},
		{"temperature 0, top_p 0", set(func(p *sample.Params) { p.Temperature, p.TopP = 0, 0 }), true},
		{"temperature 0, typical", set(func(p *sample.Params) { p.Temperature, p.TypicalP = 0, 0.5 }), false},
		{"top_k 1, typical", set(func(p *sample.Params) { p.TopK, p.TypicalP = 1, 0.5 }), true},
		{"temperature 0, repeat penalty", set(func(p *sample.Params) { p.Temperature, p.RepeatPenalty = 0, 1.1 }), false},
		{"temperature 0, frequency penalty", set(func(p *sample.Params) { p.Temperature, p.FrequencyPenalty = 0, 0.5 }), false},
		{"top_k 1, presence penalty, no window", set(func(p *sample.Params) { p.TopK, p.PresencePenalty, p.PenaltyLastN = 1, 0.5, 0 }), false},
		{"temperature 0, logit bias", set(func(p *sample.Params) { p.Temperature, p.LogitBias = 0, map[int32]float32{3: -1} }), false},
	} {
		if got := engine.PlainGreedy(c.p); got != c.want {
			t.Errorf("%s: engine.PlainGreedy %v, want %v", c.name, got, c.want)
		}
	}
}

// checkPathsAgree runs requests that end every way a generation can
// (length, an end-of-generation token, a stop string, a full context, a
// chat turn reusing the cache) on the greedy path and on the sampler path
// and requires the same responses and streamed events; the greedy runs
// must have taken the greedy path, the others not. (CachedTokens differ:
// the second run of a pair reuses the first's prompt.)
func checkPathsAgree(t *testing.T, h *Host, prompt string, nctx int) {
	ref := greedy(24)
	ref.Prompt = prompt
	full, _, _ := run(t, h, ref)
	if len(full.Text) < 2 {
		t.Fatalf("greedy text %q too short to cut with a stop string", full.Text)
	}
	stop := ref
	stop.Stop = []string{full.Text[len(full.Text)/2:][:1]}
	eos := ref
	eos.IgnoreEOS = false
	fill := ref
	fill.MaxTokens = 0 // until the context is full
	topk := ref
	topk.Sampling.Temperature, topk.Sampling.TopK = 0.8, 1
	chatReq := greedy(8)
	chatReq.Chat, chatReq.Messages = true, []chat.Message{{Role: "user", Content: prompt}}
	for _, c := range []struct {
		name string
		req  Request
	}{{"length", ref}, {"stop string", stop}, {"eos", eos}, {"context full", fill}, {"top_k 1", topk}, {"chat", chatReq}, {"chat again", chatReq}} {
		g, gev, onGreedy := run(t, h, c.req)
		s, sev, onGreedy2 := run(t, h, viaSampler(c.req))
		if !onGreedy || onGreedy2 {
			t.Errorf("%s: greedy path taken %v for the greedy request, %v for the biased one", c.name, onGreedy, onGreedy2)
		}
		if !slices.Equal(g.Ids, s.Ids) || g.Text != s.Text || g.Finish != s.Finish || g.PromptTokens != s.PromptTokens ||
			g.CompletionTokens != s.CompletionTokens || !slices.Equal(gev, sev) {
			t.Errorf("%s: greedy path %+v %q, sampler path %+v %q", c.name, g, gev, s, sev)
		}
		if c.name == "context full" && (g.Finish != "length" || int(g.PromptTokens+g.CompletionTokens) != nctx+1) {
			t.Errorf("context full: %+v in a context of %d", g, nctx)
		}
	}
}

// TestGreedyPathCPU: on the CPU backend greedy requests run on
// engine.Greedy and behave exactly as on the sampler chain (whose greedy
// ids TestGreedyEqualsLlamaCpp compares with llama.cpp's).
func TestGreedyPathCPU(t *testing.T) {
	r := loadRef(t, "../../testdata/ref/tiny-llama-q8_0.ref.json")
	h := loadHost(t, "../../testdata/models/tiny-llama-q8_0.gguf", 64)
	checkPathsAgree(t, h, r.Prompts[0].Prompt, 64)
}

// TestGreedyPathWebGPU is TestGreedyPathCPU on the WebGPU backend
// (natively; lavapipe in CI), where Greedy is the pipelined GPU-argmax
// path; its greedy ids must also equal llama.cpp's, and a cancel from the
// token callback must stop it within one token.
func TestGreedyPathWebGPU(t *testing.T) {
	h := loadGPUHost(t, "../../testdata/models/tiny-llama-q8_0.gguf", 64)
	r := loadRef(t, "../../testdata/ref/tiny-llama-q8_0.ref.json")
	for i, p := range r.Prompts[:2] {
		req := greedy(len(p.Greedy))
		req.Prompt = p.Prompt
		resp, _, onGreedy := run(t, h, req)
		if !onGreedy || !slices.Equal(resp.Ids, p.Greedy) {
			t.Errorf("prompt %d: greedy path %v, ids %v, llama.cpp %v", i, onGreedy, resp.Ids, p.Greedy)
		}
	}
	checkPathsAgree(t, h, r.Prompts[0].Prompt, 64)

	req := greedy(32)
	req.Prompt = r.Prompts[0].Prompt
	want, _, _ := run(t, h, req)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, err := h.Generate(ctx, req, func(int32, string) error {
		if n++; n == 3 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || n != 3 {
		t.Fatalf("canceled after 3 tokens: err %v after %d", err, n)
	}
	// The host stays usable and consistent after a cancel (a step was in
	// flight when it came).
	if after, _, _ := run(t, h, req); !slices.Equal(after.Ids, want.Ids) {
		t.Fatalf("after cancel: %v, before %v", after.Ids, want.Ids)
	}
}

// loadGPUHost is loadHost on the WebGPU backend (natively: lavapipe in CI).
func loadGPUHost(t *testing.T, path string, nctx int) *Host {
	t.Helper()
	if os.Getenv("LP_NUM_THREADS") == "" {
		t.Setenv("LP_NUM_THREADS", "0") // see compute/gpu's TestMain
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h := New()
	h.SetBackend("webgpu", gpu.OpenBackend)
	info, err := h.Load(context.Background(), data, LoadOptions{NCtx: nctx, Backend: "webgpu"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Unload(context.Background()) })
	if info.Backend != "webgpu" {
		t.Fatalf("loaded on %s", info.Backend)
	}
	return h
}
