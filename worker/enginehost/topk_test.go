package enginehost

import (
	"slices"
	"testing"

	"github.com/webgguf/webgguf/sample"
)

// TestTopKPathWebGPU: on the WebGPU backend (natively; lavapipe in CI) a
// sampled request whose chain starts with top-k draws every token from the
// GPU's top-k candidates (engine.CandidateSampler) and produces exactly the
// tokens, text and events of the same request forced onto the whole-row
// path by a zero logit bias (which changes no logit), seed for seed; bias
// and penalties keep the whole row.
func TestTopKPathWebGPU(t *testing.T) {
	h := loadGPUHost(t, "../../testdata/models/gotiny-q4_k_m.gguf", 96)

	set := func(seed uint32, f func(p *sample.Params)) Request {
		p := sample.Defaults()
		p.Seed = seed
		f(&p)
		return Request{Prompt: "Once upon a time, in a small village by the sea,", MaxTokens: 24, Sampling: p, IgnoreEOS: true}
	}
	for _, c := range []struct {
		name string
		req  Request
	}{
		{"defaults (top_k 40, top_p 0.95, min_p 0.05, temperature 0.8)", set(1, func(*sample.Params) {})},
		{"hot: temperature 2, top_k 64", set(2, func(p *sample.Params) { p.Temperature, p.TopK, p.TopP, p.MinP = 2, 64, 1, 0 })},
		{"top_k 5, typical 0.9", set(3, func(p *sample.Params) { p.TopK, p.TypicalP, p.Temperature = 5, 0.9, 1.3 })},
		{"top_k 2, temperature 1", set(4, func(p *sample.Params) { p.TopK, p.TopP, p.MinP, p.Temperature = 2, 1, 0, 1 })},
	} {
		before := h.candidateDraws.Load()
		got, gev, _ := run(t, h, c.req)
		draws := h.candidateDraws.Load() - before
		before = h.candidateDraws.Load()
		want, wev, _ := run(t, h, viaSampler(c.req))
		if d := h.candidateDraws.Load() - before; d != 0 {
			t.Errorf("%s: the biased request drew %d tokens from candidates", c.name, d)
		}
		if draws != int64(got.CompletionTokens) || draws == 0 {
			t.Errorf("%s: %d candidate draws for %d tokens", c.name, draws, got.CompletionTokens)
		}
		if !slices.Equal(got.Ids, want.Ids) || got.Text != want.Text || got.Finish != want.Finish || !slices.Equal(gev, wev) {
			t.Errorf("%s: top-k path %v %q, whole-row path %v %q", c.name, got.Ids, got.Text, want.Ids, want.Text)
		}
		if distinct := len(slices.Compact(slices.Sorted(slices.Values(got.Ids)))); c.req.Sampling.TopK > 2 && distinct < 3 {
			t.Errorf("%s: only %d distinct tokens in %v: not sampling", c.name, distinct, got.Ids)
		}
	}

	// A repeat penalty (applied before top-k) keeps the whole row.
	pen := set(5, func(p *sample.Params) { p.RepeatPenalty = 1.3 })
	before := h.candidateDraws.Load()
	run(t, h, pen)
	if d := h.candidateDraws.Load() - before; d != 0 {
		t.Errorf("repeat penalty: %d candidate draws", d)
	}
}

// TestTopKPathEqualsLlamaCppGreedy: a top-k request narrowed by min_p 0.99
// to the best candidate draws llama.cpp's greedy ids (testdata/ref) through
// the GPU top-k path, so the candidates' ids and logits are right against
// an outside reference, not only against the whole-row path.
func TestTopKPathEqualsLlamaCppGreedy(t *testing.T) {
	h := loadGPUHost(t, "../../testdata/models/tiny-llama-q8_0.gguf", 64)
	r := loadRef(t, "../../testdata/ref/tiny-llama-q8_0.ref.json")
	for i, p := range r.Prompts[:2] {
		s := sample.Defaults()
		s.Temperature, s.TopK, s.TopP, s.MinP, s.Seed = 1, 2, 1, 0.99, 7
		before := h.candidateDraws.Load()
		resp, _, _ := run(t, h, Request{Prompt: p.Prompt, MaxTokens: len(p.Greedy), Sampling: s, IgnoreEOS: true})
		if d := h.candidateDraws.Load() - before; d != int64(len(p.Greedy)) || !slices.Equal(resp.Ids, p.Greedy) {
			t.Errorf("prompt %d: %d candidate draws, ids %v, llama.cpp greedy %v", i, d, resp.Ids, p.Greedy)
		}
	}
}
