package enginehost

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/webgguf/webgguf/chat"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/glue"
	"github.com/webgguf/webgguf/sample"
	"github.com/webgguf/webgguf/sample/grammar"
)

// maxStops bounds the stop strings of one request (OpenAI allows 4; a few
// more cost nothing, thousands would slow every token).
const maxStops = 16

// Request is one generation: a plain prompt, or a conversation rendered
// through the chat template when Messages is set.
type Request struct {
	Prompt    string
	Messages  []chat.Message
	Chat      bool
	MaxTokens int // ≤ 0: until the context is full
	Sampling  sample.Params
	Stop      []string
	IgnoreEOS bool
	// Grammar (GBNF) or JSONSchema (JSON text), at most one, constrain
	// the output; compiled once per model and source.
	Grammar    string
	JSONSchema string
	// Tools (a JSON array of OpenAI tool definitions), ToolChoice and
	// ToolName: see glue.GenerateRequest and tools.go.
	Tools      []byte
	ToolChoice string
	ToolName   string
}

// Generate runs req, calling onToken with each token and the text it
// completes. It returns when generation ends (see glue.GenerateResponse) or
// fails; a canceled ctx stops it within one token and returns ctx's error.
func (h *Host) Generate(ctx context.Context, req Request, onToken func(id int32, text string) error) (*glue.GenerateResponse, error) {
	if len(req.Stop) > maxStops {
		return nil, invalid("at most " + itoa(maxStops) + " stop strings")
	}
	release, err := h.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	m, err := h.model()
	if err != nil {
		return nil, err
	}
	tools, err := m.prepareTools(&req)
	if err != nil {
		return nil, err
	}
	var ids []int32
	if req.Chat {
		ids, err = m.chatPromptTools(req.Messages, tools)
	} else {
		ids, err = m.tok.Encode(req.Prompt, true, true)
	}
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, invalid("the prompt is empty and the model adds no BOS token")
	}
	nctx := m.eng.NCtx()
	// Generate feeds the prompt and every sampled token but the last.
	room := nctx - len(ids) + 1
	if room <= 0 {
		return nil, classifyRun(contextFull(nctx, len(ids)))
	}
	n := room
	if req.MaxTokens > 0 && req.MaxTokens < n {
		n = req.MaxTokens
	}
	sm, err := sample.New(int(m.info.NVocab), req.Sampling)
	if err != nil {
		return nil, invalid(err.Error())
	}
	gm, err := m.constraint(req.Grammar, req.JSONSchema)
	if err != nil {
		return nil, err
	}
	// Reuse the longest common prefix with what the cache holds; at least
	// one token must be fed.
	keep := 0
	for keep < len(ids)-1 && keep < len(m.inCtx) && ids[keep] == m.inCtx[keep] {
		keep++
	}
	if err := m.eng.Truncate(keep); err != nil {
		m.inCtx = nil
		m.eng.Reset()
		keep = 0
	}
	m.inCtx = m.inCtx[:keep]
	// As llama.cpp's server does per request: a sampler state (seed and
	// penalty window) that has seen the prompt.
	for _, id := range ids {
		if err := sm.Accept(id); err != nil {
			return nil, err
		}
	}
	resp := &glue.GenerateResponse{PromptTokens: int32(len(ids)), CachedTokens: int32(keep), Finish: "length"}
	dec := m.tok.NewDecoder(false)
	stop := sample.NewStopMatcher(req.Stop)
	var text []byte
	var out []int32
	var sendErr error
	start := time.Now()
	var first time.Time
	emit := func(id int32, s string) bool {
		// Byte tokens can make sequences no later byte completes (random
		// or confused models do); the wire carries valid UTF-8 only.
		s = strings.ToValidUTF8(s, "\uFFFD")
		text = append(text, s...)
		if err := onToken(id, s); err != nil {
			sendErr = err
			return false
		}
		return true
	}
	// On a backend that selects the top k logits itself (the GPU), a
	// chain that starts with top-k draws from k candidates: 512 bytes read
	// back a token instead of a vocabulary row, same tokens.
	var picker engine.Sampler = countedSampler{sm, &h.candidateDraws}
	if gm != nil {
		// The grammar masks the vocabulary before the chain, as llama.cpp
		// applies its grammar sampler first; greedy too takes the best
		// token the grammar allows.
		gs, err := grammar.NewSampler(gm, sm)
		if err != nil {
			return nil, err
		}
		picker = gs
	} else if plainGreedy(req.Sampling) {
		picker = engine.Greedy{}
		h.greedyRuns.Add(1)
	}
	err = m.eng.Generate(ctx, ids[keep:], n, picker, func(t int32) bool {
		yieldToJS()
		if ctx.Err() != nil {
			return false
		}
		if first.IsZero() {
			first = time.Now()
		}
		out = append(out, t)
		if m.eog[t] && !req.IgnoreEOS {
			resp.Finish = "stop"
			emit(t, "")
			return false
		}
		s, stopped := stop.Push(dec.Push(t))
		if !emit(t, s) {
			return false
		}
		if stopped {
			resp.Finish = "stop"
		}
		return !stopped
	})
	// The cache now holds the prompt and every generated token but the
	// last; on an error it holds an unknown part of them.
	if err != nil {
		m.inCtx = m.inCtx[:0]
		m.eng.Reset()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, grammar.ErrNoToken) {
			return nil, invalid("the grammar allows no token of this model's vocabulary at this point of the output")
		}
		if lost := classifyDeviceLost(err, m.be); lost != nil {
			// Nothing on the lost device is usable: free the model, so
			// that later calls say no-model until load() opens a new one.
			h.unloadLocked()
			return nil, lost
		}
		return nil, classifyRun(err)
	}
	if sendErr != nil {
		m.inCtx = m.inCtx[:0]
		m.eng.Reset()
		return nil, sendErr
	}
	m.inCtx = append(append(m.inCtx[:0], ids...), out[:max(len(out)-1, 0)]...)
	if !stop.Stopped() {
		tail, _ := stop.Push(dec.Flush())
		tail += stop.Flush()
		tail = strings.ToValidUTF8(tail, "\uFFFD")
		if tail != "" {
			text = append(text, tail...)
			if err := onToken(-1, tail); err != nil {
				return nil, err
			}
		}
	}
	end := time.Now()
	if first.IsZero() {
		first = end
	}
	resp.Text = string(text)
	resp.Ids = out
	resp.CompletionTokens = int32(len(out))
	resp.PromptMs = ms(first.Sub(start))
	resp.GenMs = ms(end.Sub(first))
	tools.finish(resp)
	return resp, nil
}

// contextFull is the error of a prompt longer than the context.
func contextFull(nctx, need int) error {
	return &contextFullError{nctx: nctx, need: need}
}

type contextFullError struct{ nctx, need int }

func (e *contextFullError) Error() string {
	return "prompt of " + itoa(int64(e.need)) + " tokens leaves no room in a context of " + itoa(int64(e.nctx))
}

// GlueKind marks it context-full.
func (e *contextFullError) GlueKind() string { return KindContextFull }

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// SamplingFrom builds sampler parameters from a request's fields, checking
// them (NaN or out-of-range values are invalid-argument errors).
func SamplingFrom(r *glue.GenerateRequest) (sample.Params, error) {
	p := sample.Defaults()
	for name, v := range map[string]float32{"temperature": r.Temperature, "top_p": r.TopP, "min_p": r.MinP,
		"repeat_penalty": r.RepeatPenalty, "frequency_penalty": r.FrequencyPenalty, "presence_penalty": r.PresencePenalty} {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return p, invalid(name + " must be a finite number")
		}
	}
	if r.PenaltyLastN < 0 || r.PenaltyLastN > 1<<16 {
		return p, invalid("penalty_last_n must be in 0..65536")
	}
	p.Temperature, p.TopK, p.TopP, p.MinP = r.Temperature, int(r.TopK), r.TopP, r.MinP
	p.RepeatPenalty, p.PenaltyLastN = r.RepeatPenalty, int(r.PenaltyLastN)
	p.FrequencyPenalty, p.PresencePenalty, p.Seed = r.FrequencyPenalty, r.PresencePenalty, r.Seed
	if p.RepeatPenalty == 0 {
		p.RepeatPenalty = 1
	}
	return p, nil
}

// countedSampler is the request's sampler, counting the draws made from
// top-k candidates (engine.CandidateSampler), so tests can tell the path.
type countedSampler struct {
	*sample.Sampler
	n *atomic.Int64
}

// SampleCandidates draws from the candidates and counts the draw.
func (c countedSampler) SampleCandidates(ids []int32, logits []float32) (int32, error) {
	c.n.Add(1)
	return c.Sampler.SampleCandidates(ids, logits)
}
