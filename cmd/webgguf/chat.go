package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/webgguf/webgguf/chat"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/sample"
	"github.com/webgguf/webgguf/tokenizer"
)

func init() {
	commands["chat"] = command{
		summary: "chat with a model on stdin/stdout through its chat template (CPU backend)",
		run: func(args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			return chatCmd(ctx, args, os.Stdin, os.Stdout, os.Stderr)
		},
	}
}

// stopList collects repeated --stop flags.
type stopList []string

func (s *stopList) String() string     { return strings.Join(*s, ",") }
func (s *stopList) Set(v string) error { *s = append(*s, unescape(v)); return nil }

// chatCmd implements `webgguf chat --model F`: every line on stdin is a user
// turn; the reply streams to stdout, ending at an end-of-generation token, a
// --stop string or -n tokens.
func chatCmd(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("chat", flag.ContinueOnError)
	fs.SetOutput(stderr)
	modelPath := fs.String("model", "", "GGUF model (required)")
	system := fs.String("system", "", "system message")
	n := fs.Int("n", 256, "tokens per reply at most")
	nCtx := fs.Int("ctx", 0, "context length (default: the model's, at most 4096)")
	temp := fs.Float64("temp", 0.8, "temperature; 0 is greedy")
	topK := fs.Int("top-k", 40, "top-k")
	topP := fs.Float64("top-p", 0.95, "top-p")
	minP := fs.Float64("min-p", 0.05, "min-p")
	repeat := fs.Float64("repeat-penalty", 1, "repetition penalty over the last 64 tokens")
	seed := fs.Uint("seed", 0, "sampling seed")
	var stops stopList
	fs.Var(&stops, "stop", "stop string (repeatable; \\n \\t \\\\ are unescaped)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *modelPath == "" || fs.NArg() != 0 {
		return errors.New("usage: webgguf chat --model F [--system S] [-n N] [--ctx N] [--temp T] [--top-k K] [--top-p P] [--min-p P] [--repeat-penalty R] [--seed S] [--stop S]... (webgguf chat -h describes them)")
	}
	f, err := gguf.OpenPath(*modelPath)
	if err != nil {
		return err
	}
	defer f.Close()
	tok, err := tokenizer.FromGGUF(f)
	if err != nil {
		return err
	}
	e, err := engine.Load(ctx, f, engine.Options{NCtx: *nCtx})
	if err != nil {
		return err
	}
	defer e.Close()
	p := sample.Defaults()
	p.Temperature, p.TopK, p.TopP, p.MinP = float32(*temp), *topK, float32(*topP), float32(*minP)
	p.RepeatPenalty, p.Seed = float32(*repeat), uint32(*seed)
	s, err := newChatSession(f, tok, e, p, stderr)
	if err != nil {
		return err
	}
	if *system != "" {
		s.messages = append(s.messages, chat.Message{Role: "system", Content: *system})
	}
	// The prompt marker and each turn's speed go to stderr, so that stdout
	// holds the replies alone.
	in := bufio.NewScanner(stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	fmt.Fprint(stderr, "> ")
	for in.Scan() {
		line := in.Text()
		if strings.TrimSpace(line) == "" {
			fmt.Fprint(stderr, "> ")
			continue
		}
		t0 := time.Now()
		out, err := s.turn(ctx, line, *n, stops, stdout)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout)
		if d := time.Since(t0).Seconds(); d > 0 {
			fmt.Fprintf(stderr, "[%d tokens in %.2f s with the prompt: %.1f tok/s]\n", len(out), d, float64(len(out))/d)
		}
		fmt.Fprint(stderr, "> ")
	}
	fmt.Fprintln(stderr)
	return in.Err()
}

// chatSession is a conversation with one loaded model. It keeps the tokens
// the engine's context holds, so that each turn only evaluates what the
// re-rendered conversation adds after their common prefix.
type chatSession struct {
	tpl      *chat.Template
	opts     chat.Options
	tok      *tokenizer.Tokenizer
	eng      *engine.Engine
	sampler  *sample.Sampler
	eog      map[int32]bool
	messages []chat.Message
	inCtx    []int32
	lastKeep int // prompt tokens the last turn reused from the context
}

func newChatSession(f *gguf.File, tok *tokenizer.Tokenizer, e *engine.Engine, p sample.Params, stderr io.Writer) (*chatSession, error) {
	src, warning := chat.TemplateFor(f)
	if warning != "" {
		fmt.Fprintln(stderr, "warning:", warning)
	}
	tpl, err := chat.Parse(src)
	if err != nil {
		return nil, err
	}
	sm, err := sample.New(e.Config().NVocab, p)
	if err != nil {
		return nil, err
	}
	s := &chatSession{tpl: tpl, tok: tok, eng: e, sampler: sm, eog: map[int32]bool{},
		opts: chat.Options{AddGenerationPrompt: true, BOSToken: tokenText(f, "tokenizer.ggml.bos_token_id"), EOSToken: tokenText(f, "tokenizer.ggml.eos_token_id")}}
	for _, id := range sample.EOGTokens(f) {
		s.eog[id] = true
	}
	return s, nil
}

// prompt renders the conversation and tokenizes it as llama.cpp does: the
// tokenizer adds BOS when the model asks, so a BOS the template wrote
// itself is dropped first (common/chat.cpp does the same).
func (s *chatSession) prompt() ([]int32, error) {
	text, err := s.tpl.Render(s.messages, s.opts)
	if err != nil {
		return nil, err
	}
	if s.tok.AddBOS() && s.opts.BOSToken != "" {
		text = strings.TrimPrefix(text, s.opts.BOSToken)
	}
	return s.tok.Encode(text, true, true)
}

// turn adds a user message, streams the reply to w and records it; it
// returns the reply's tokens.
func (s *chatSession) turn(ctx context.Context, user string, n int, stops []string, w io.Writer) ([]int32, error) {
	s.messages = append(s.messages, chat.Message{Role: "user", Content: user})
	ids, err := s.prompt()
	if err != nil {
		return nil, err
	}
	// Reuse the longest common prefix; at least one token must be fed.
	keep := 0
	for keep < len(ids)-1 && keep < len(s.inCtx) && ids[keep] == s.inCtx[keep] {
		keep++
	}
	if err := s.eng.Truncate(keep); err != nil {
		// A sliding-window cache that no longer holds the prefix's
		// window: evaluate the whole prompt again.
		s.eng.Reset()
		keep = 0
	}
	s.lastKeep = keep
	// As llama.cpp's server does per request: a fresh sampler state (seed
	// and penalty window) that has seen the prompt.
	s.sampler.Reset()
	for _, id := range ids {
		if err := s.sampler.Accept(id); err != nil {
			return nil, err
		}
	}
	dec := s.tok.NewDecoder(false)
	stop := sample.NewStopMatcher(stops)
	var reply strings.Builder
	var out []int32
	emit := func(text string) {
		reply.WriteString(text)
		io.WriteString(w, text)
	}
	err = s.eng.Generate(ctx, ids[keep:], n, s.sampler, func(t int32) bool {
		out = append(out, t)
		if s.eog[t] {
			return false
		}
		text, stopped := stop.Push(dec.Push(t))
		emit(text)
		return !stopped
	})
	if !stop.Stopped() {
		text, _ := stop.Push(dec.Flush())
		emit(text + stop.Flush())
	}
	if err != nil {
		return nil, err
	}
	// The context now holds the prompt and every reply token but the last.
	s.inCtx = append(append(s.inCtx[:0], ids...), out[:max(len(out)-1, 0)]...)
	s.messages = append(s.messages, chat.Message{Role: "assistant", Content: reply.String()})
	return out, nil
}
