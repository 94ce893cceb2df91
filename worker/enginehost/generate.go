package enginehost

import (
	"context"
	"errors"
	"math"
	"strconv"
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
	MaxTokens int // ≤ 0: until the context is full (with ContextShift: n_ctx tokens)
	Sampling  sample.Params
	Stop      []string
	IgnoreEOS bool
	// ContextShift lets a generation that fills the context go on as
	// llama.cpp's context shift: keep the first NKeep tokens, drop half
	// of the rest (engine.SessionOptions).
	ContextShift bool
	NKeep        int
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
// The session logic (prefix reuse, sampler history, stops, detokenizing,
// context shift) is engine.Session's.
func (h *Host) Generate(ctx context.Context, req Request, onToken func(id int32, text string) error) (*glue.GenerateResponse, error) {
	if len(req.Stop) > maxStops {
		return nil, invalid("at most " + itoa(maxStops) + " stop strings")
	}
	if req.NKeep < 0 {
		return nil, invalid("n_keep must not be negative")
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
		if ids, err = m.chatPromptTools(req.Messages, tools); err != nil {
			return nil, err
		}
	} else if ids, err = m.tok.Encode(req.Prompt, true, true); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, invalid("the prompt is empty and the model adds no BOS token")
	}
	nctx := m.eng.NCtx()
	if !req.ContextShift && len(ids) > nctx {
		return nil, classifyRun(contextFull(nctx, len(ids)))
	}
	if err := m.sess.SetContextShift(req.ContextShift, req.NKeep, 0); err != nil {
		var se *engine.ShiftError
		if errors.As(err, &se) {
			return nil, invalid("contextShift: " + se.Reason)
		}
		return nil, invalid(err.Error())
	}
	sm, err := sample.New(int(m.info.NVocab), req.Sampling)
	if err != nil {
		return nil, invalid(err.Error())
	}
	gm, err := m.constraint(req.Grammar, req.JSONSchema)
	if err != nil {
		return nil, err
	}
	// On a backend that selects the top k logits itself (the GPU), a
	// chain that starts with top-k draws from k candidates: 512 bytes read
	// back a token instead of a vocabulary row, same tokens. The session
	// runs parameters that always pick the top logit on engine.Greedy.
	var picker engine.Sampler = countedSampler{sm, &h.candidateDraws}
	if gm != nil {
		// The grammar masks the vocabulary before the chain, as llama.cpp
		// applies its grammar sampler first; greedy too takes the best
		// token the grammar allows. The grammar sampler hides the chain's
		// history from the session, so the prompt is shown to it here.
		for _, id := range ids {
			if err := sm.Accept(id); err != nil {
				return nil, err
			}
		}
		gs, err := grammar.NewSampler(gm, sm)
		if err != nil {
			return nil, err
		}
		picker = gs
	} else if engine.PlainGreedy(req.Sampling) {
		h.greedyRuns.Add(1)
	}
	var sendErr error
	res, err := m.sess.Generate(ctx, engine.GenerateRequest{
		Prompt: ids, MaxTokens: req.MaxTokens, Sampler: picker,
		Stop: req.Stop, IgnoreEOS: req.IgnoreEOS, Yield: yieldToJS,
		OnToken: func(id int32, text string) error {
			if err := onToken(id, text); err != nil {
				sendErr = err
				return err
			}
			return nil
		},
	})
	if sendErr != nil {
		// The page is gone or the stream broke: what the cache holds is
		// right, but the next request starts afresh as before.
		m.sess.Reset()
		return nil, sendErr
	}
	if err != nil {
		// The session has emptied itself: the cache holds an unknown
		// part of the tokens.
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
	resp := &glue.GenerateResponse{Text: res.Text, Ids: res.Tokens, Finish: res.Finish,
		PromptTokens: int32(len(ids)), CompletionTokens: int32(len(res.Tokens)), CachedTokens: int32(res.Reused),
		PromptMs: ms(res.PromptTime), GenMs: ms(res.GenTime), Shifts: int32(res.Shifts)}
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
