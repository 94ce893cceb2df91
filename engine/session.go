package engine

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/webgguf/webgguf/sample"
)

// Session is one conversation held in an Engine's KV cache: the tokens the
// cache holds, and the generation loop around them (prompt reuse, sampler
// history, end-of-generation and stop strings, incremental detokenization,
// context shift). The CLI, the browser worker and Go programs share it. A
// Session owns its engine's cache: evaluating on the engine outside the
// Session leaves the Session's idea of the cache wrong (call Reset). Not
// safe for concurrent use.
type Session struct {
	e      *Engine
	opts   SessionOptions
	eog    map[int32]bool
	tokens []int32 // tokens[i] is what the cache holds at position i
}

// SessionOptions configure NewSession.
type SessionOptions struct {
	// ContextShift, when set, makes room in a full context as llama.cpp
	// does (tools/main, tools/server): keep the first NKeep tokens, drop
	// NDiscard of those after them (0: half), move the rest down (Engine.Shift)
	// and go on. Unset, a generation ends with FinishLength when the
	// context is full and a prompt that does not fit is a
	// *ContextFullError.
	ContextShift bool
	// NKeep is how many tokens at the start of the context a shift never
	// drops (llama.cpp's n_keep, counted from position 0 with the BOS
	// token: llama.cpp's --keep N is NKeep N+1 on a model that adds BOS).
	NKeep int
	// NDiscard is how many tokens a shift drops (llama.cpp's n_discard);
	// 0 drops half of those after NKeep, as llama.cpp by default.
	NDiscard int
	// EOG are the end-of-generation tokens; nil means those of the
	// engine's file (sample.EOGTokens).
	EOG []int32
}

// Finish reasons of a GenerateResult.
const (
	// FinishStop: an end-of-generation token or a stop string ended it.
	FinishStop = "stop"
	// FinishLength: MaxTokens, or a full context without ContextShift.
	FinishLength = "length"
)

// GenerateRequest is one generation of a Session.
type GenerateRequest struct {
	// Prompt is what the context must hold before the first new token:
	// the whole conversation, of which the longest prefix the cache
	// already holds is reused (OpenAI-shaped requests), or with Append the
	// tokens that follow what the session holds (a chat that streams on,
	// as llama-cli's).
	Prompt []int32
	Append bool
	// MaxTokens bounds the new tokens; ≤ 0 means until the context is
	// full (with ContextShift: NCtx tokens).
	MaxTokens int
	// Sampler picks the tokens (nil: Greedy). One with Reset and Accept
	// (*sample.Sampler) is reset and shown the prompt when Prompt replaces
	// the context, shown only the new tokens with Append, as llama.cpp's
	// server and CLI do; one whose parameters always pick the top logit
	// runs as Greedy, where the backend picks the token.
	Sampler Sampler
	// Stop strings end the generation; the text from a stop string on is
	// not delivered.
	Stop []string
	// IgnoreEOS keeps generating past end-of-generation tokens.
	IgnoreEOS bool
	// OnToken, if set, gets each token and the text it completes (valid
	// UTF-8; "" for an end-of-generation token), then once id -1 and the
	// text held back at the end, if any. An error stops the generation
	// and is returned.
	OnToken func(id int32, text string) error
	// Yield, if set, is called before each new token is handled (the
	// browser worker lets its event loop deliver a cancellation there).
	Yield func()
}

// GenerateResult describes a finished generation.
type GenerateResult struct {
	Tokens []int32 // new tokens, end-of-generation token included
	Text   string  // their text, up to a stop string
	Finish string  // FinishStop or FinishLength
	// PromptTokens is the context the generation started from (the whole
	// prompt, or with Append the session's tokens plus the new ones);
	// Reused of them were already in the cache.
	PromptTokens, Reused int
	// Shifts counts context shifts, Discarded the tokens they dropped.
	Shifts, Discarded int
	// PromptTime is from the call to the first new token, GenTime from
	// there to the end.
	PromptTime, GenTime time.Duration
}

// NewSession starts an empty session on e, emptying e's cache. With
// ContextShift, an engine that cannot shift (CanShift) is a *ShiftError.
func NewSession(e *Engine, opts SessionOptions) (*Session, error) {
	if opts.NKeep < 0 || opts.NDiscard < 0 {
		return nil, &OptionError{"session", "NKeep and NDiscard must not be negative"}
	}
	if opts.ContextShift {
		if err := e.CanShift(); err != nil {
			return nil, err
		}
	}
	if e.tok == nil {
		return nil, e.tokErr
	}
	s := &Session{e: e, opts: opts, eog: map[int32]bool{}}
	eog := opts.EOG
	if eog == nil && e.f != nil {
		eog = sample.EOGTokens(e.f)
	}
	for _, id := range eog {
		s.eog[id] = true
	}
	e.Reset()
	return s, nil
}

// Engine is the session's engine.
func (s *Session) Engine() *Engine { return s.e }

// Tokens returns a copy of the tokens the cache holds, in position order.
func (s *Session) Tokens() []int32 { return slices.Clone(s.tokens) }

// IsEOG reports whether id ends a generation.
func (s *Session) IsEOG(id int32) bool { return s.eog[id] }

// Reset empties the session and its engine's cache.
func (s *Session) Reset() {
	s.tokens = s.tokens[:0]
	s.e.Reset()
}

// samplerState is the part of *sample.Sampler a session drives.
type samplerState interface {
	Reset()
	Accept(tok int32) error
}

// Generate evaluates req.Prompt after what the cache can reuse and samples
// up to req.MaxTokens tokens. On an evaluation error or cancellation the
// session is emptied (the cache holds an unknown part of the tokens) and
// the error (ctx's, for a cancel) returned.
func (s *Session) Generate(ctx context.Context, req GenerateRequest) (*GenerateResult, error) {
	start := time.Now()
	e := s.e
	nctx := e.NCtx()
	full := req.Prompt
	if req.Append {
		if len(req.Prompt) == 0 {
			return nil, &OptionError{"prompt", "empty: Append needs at least one new token"}
		}
		full = append(slices.Clip(s.tokens), req.Prompt...)
	}
	if len(full) == 0 {
		return nil, &OptionError{"prompt", "empty: Generate needs at least one token to condition on"}
	}
	if !s.opts.ContextShift && len(full) > nctx {
		return nil, &ContextFullError{NCtx: nctx, Need: len(full)}
	}
	// Reuse the longest common prefix; at least one token must be fed.
	keep := 0
	for keep < len(full)-1 && keep < len(s.tokens) && full[keep] == s.tokens[keep] {
		keep++
	}
	if err := e.Truncate(keep); err != nil {
		// A sliding-window cache that no longer holds the prefix's
		// window: evaluate the whole prompt again.
		e.Reset()
		keep = 0
	}
	res := &GenerateResult{PromptTokens: len(full), Reused: keep, Finish: FinishLength}
	feed := full[keep:]
	s.tokens = s.tokens[:keep] // what the cache holds; feed follows
	if s.opts.ContextShift {
		if min(s.opts.NKeep, e.Pos())+len(feed) >= nctx {
			return nil, &ContextFullError{NCtx: nctx, Pos: e.Pos(), Need: len(feed)}
		}
		// As llama.cpp before each decode: shift while the pending
		// tokens would reach the end of the context.
		for e.Pos()+len(feed) >= nctx {
			if err := s.shift(res); err != nil {
				// Not even the kept tokens leave room: the prompt is
				// longer than the context can hold.
				return nil, &ContextFullError{NCtx: nctx, Pos: e.Pos(), Need: len(feed)}
			}
		}
	}

	n := req.MaxTokens
	room := nctx - e.Pos() - len(feed) + 1
	switch {
	case s.opts.ContextShift && n <= 0:
		n = nctx
	case !s.opts.ContextShift && (n <= 0 || n > room):
		n = room
	}

	picker := req.Sampler
	if picker == nil {
		picker = Greedy{}
	}
	if st, ok := picker.(samplerState); ok {
		accept := req.Prompt
		if !req.Append {
			st.Reset()
		}
		for _, id := range accept {
			if err := st.Accept(id); err != nil {
				return nil, err
			}
		}
	}
	if p, ok := picker.(interface{ Params() sample.Params }); ok && PlainGreedy(p.Params()) {
		picker = Greedy{}
	}

	dec := s.e.tok.NewDecoder(false)
	stop := sample.NewStopMatcher(req.Stop)
	var text strings.Builder
	var first time.Time
	var cbErr error
	done := false
	emit := func(id int32, t string) bool {
		// Byte tokens can make sequences no later byte completes (random
		// or confused models do); callers get valid UTF-8 only.
		t = strings.ToValidUTF8(t, "\uFFFD")
		text.WriteString(t)
		if req.OnToken != nil {
			if err := req.OnToken(id, t); err != nil {
				cbErr = err
				return false
			}
		}
		return true
	}
	for n > 0 {
		seg := n
		if s.opts.ContextShift {
			seg = min(seg, nctx-e.Pos()-len(feed))
		}
		var segOut []int32
		err := e.Generate(ctx, feed, seg, picker, func(t int32) bool {
			if req.Yield != nil {
				req.Yield()
			}
			if ctx.Err() != nil {
				return false
			}
			if first.IsZero() {
				first = time.Now()
			}
			segOut = append(segOut, t)
			if s.eog[t] && !req.IgnoreEOS {
				res.Finish, done = FinishStop, true
				emit(t, "")
				return false
			}
			piece, stopped := stop.Push(dec.Push(t))
			if !emit(t, piece) {
				done = true
				return false
			}
			if stopped {
				res.Finish, done = FinishStop, true
			}
			return !stopped
		})
		if err == nil && ctx.Err() != nil {
			err = ctx.Err()
		}
		if err != nil {
			s.Reset()
			return nil, err
		}
		// The cache holds the fed tokens and every sampled one but the
		// segment's last.
		s.tokens = append(append(s.tokens, feed...), segOut[:max(len(segOut)-1, 0)]...)
		res.Tokens = append(res.Tokens, segOut...)
		n -= len(segOut)
		if done || cbErr != nil || n <= 0 || len(segOut) == 0 {
			break
		}
		// The segment filled the context to its last position: shift and
		// feed the pending token, as llama.cpp's generation loop does.
		if err := s.shift(res); err != nil {
			break // nothing left to drop: the context is simply full
		}
		feed = segOut[len(segOut)-1:]
	}
	if cbErr != nil {
		return nil, cbErr
	}
	if !stop.Stopped() {
		tail, _ := stop.Push(dec.Flush())
		tail += stop.Flush()
		if tail != "" && !emit(-1, tail) {
			return nil, cbErr
		}
	}
	end := time.Now()
	if first.IsZero() {
		first = end
	}
	res.Text = text.String()
	res.PromptTime, res.GenTime = first.Sub(start), end.Sub(first)
	return res, nil
}

// shift drops NDiscard (or half) of the tokens after NKeep from the cache,
// as llama.cpp's context shift: n_discard = (n_past − n_keep)/2.
func (s *Session) shift(res *GenerateResult) error {
	pos := s.e.Pos()
	keep := min(s.opts.NKeep, pos)
	left := pos - keep
	nd := s.opts.NDiscard
	if nd == 0 {
		// llama.cpp's half; one when a single token is left, where
		// llama.cpp's zero would make no room.
		nd = max(left/2, 1)
	}
	nd = min(nd, left)
	if nd <= 0 {
		return &ContextFullError{NCtx: s.e.NCtx(), Pos: pos, Need: 1}
	}
	if err := s.e.Shift(keep, nd); err != nil {
		s.tokens = s.tokens[:0]
		return err
	}
	s.tokens = append(s.tokens[:keep], s.tokens[keep+nd:]...)
	res.Shifts++
	res.Discarded += nd
	return nil
}

// PlainGreedy reports whether sampler parameters p always pick the highest
// logit, so that a generation can run on Greedy: the backend picks each
// token (on the GPU, an argmax kernel whose id is the only thing read
// back, with the next step submitted before it is read) instead of the
// sampler chain over a logits row copied to the host for every token.
//
// The chain picks the top logit when top-k is 1, or when the temperature
// is ≤ 0 and nothing before the pick can drop the top token: top-k, top-p
// and min-p never do, locally typical sampling (TypicalP < 1) can. Logit
// bias and penalties change the logits, so parameters with any of them
// keep the chain (a zero bias too; penalties count as set even with an
// empty window, PenaltyLastN 0). The random number the chain would draw
// on a greedy pick changes no later pick of such a chain.
//
// Two differences are left, both out of reach of real logits: on an exact
// tie for the top logit Greedy takes the lowest id (llama.cpp's greedy
// sampler) where the chain takes the first its sort left in front, and a
// NaN or infinite logit is an error of the chain's only.
func PlainGreedy(p sample.Params) bool {
	if len(p.LogitBias) > 0 || p.RepeatPenalty != 1 || p.FrequencyPenalty != 0 || p.PresencePenalty != 0 {
		return false
	}
	return p.TopK == 1 || (p.Temperature <= 0 && p.TypicalP >= 1)
}

// SetNKeep changes SessionOptions.NKeep, for callers that fix it from
// their first prompt (llama-cli's --keep -1 keeps the whole of it).
func (s *Session) SetNKeep(n int) { s.opts.NKeep = max(n, 0) }

// NKeep is the tokens a context shift keeps (SessionOptions.NKeep).
func (s *Session) NKeep() int { return s.opts.NKeep }

// Forget drops the session's record of what the cache holds, leaving the
// engine as it is: the next generation evaluates its whole prompt. For
// callers that rewrote cache rows behind the session's back (a profiler
// re-running the last step).
func (s *Session) Forget() { s.tokens = s.tokens[:0] }

// SetContextShift changes SessionOptions.ContextShift, NKeep and NDiscard
// for the generations that follow; turning the shift on where the engine
// cannot shift (CanShift) is its *ShiftError, with nothing changed.
func (s *Session) SetContextShift(on bool, nKeep, nDiscard int) error {
	if nKeep < 0 || nDiscard < 0 {
		return &OptionError{"session", "NKeep and NDiscard must not be negative"}
	}
	if on {
		if err := s.e.CanShift(); err != nil {
			return err
		}
	}
	s.opts.ContextShift, s.opts.NKeep, s.opts.NDiscard = on, nKeep, nDiscard
	return nil
}
