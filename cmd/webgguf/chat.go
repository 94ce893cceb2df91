package main

import (
	"bufio"
	"context"
	"encoding/json"
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
	shift := fs.Bool("context-shift", false, "when the context is full, drop the older half of the conversation after --keep tokens and go on (llama.cpp's context shift); the conversation then streams on instead of being re-rendered each turn")
	sessionPath := fs.String("session", "", "session file: restored at start when it exists (the conversation and its KV cache, no prefill), saved after every turn")
	keep := fs.Int("keep", keepSystem, "with --context-shift: prompt tokens a shift keeps besides BOS, as llama-cli's --keep (-1: the whole first prompt; default: the system message, or BOS alone without one)")
	var stops stopList
	fs.Var(&stops, "stop", "stop string (repeatable; \\n \\t \\\\ are unescaped)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *modelPath == "" || fs.NArg() != 0 {
		return errors.New("usage: webgguf chat --model F [--system S] [-n N] [--ctx N] [--temp T] [--top-k K] [--top-p P] [--min-p P] [--repeat-penalty R] [--seed S] [--stop S]... [--context-shift [--keep N]] [--session FILE] (webgguf chat -h describes them)")
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
	e, err := engine.Load(ctx, f, engine.Options{NCtx: *nCtx, Tokenizer: tok})
	if err != nil {
		return err
	}
	defer e.Close()
	p := sample.Defaults()
	p.Temperature, p.TopK, p.TopP, p.MinP = float32(*temp), *topK, float32(*topP), float32(*minP)
	p.RepeatPenalty, p.Seed = float32(*repeat), uint32(*seed)
	s, err := newChatSession(f, tok, e, p, stderr, chatShift{on: *shift, keep: *keep})
	if err != nil {
		return err
	}
	restored := false
	if *sessionPath != "" {
		if restored, err = s.restore(*sessionPath); err != nil {
			return err
		}
		if restored {
			fmt.Fprintf(stderr, "[restored %d messages, %d tokens from %s]\n", len(s.messages), len(s.sess.Tokens()), *sessionPath)
		}
	}
	if *system != "" && !restored {
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
		if *sessionPath != "" {
			if err := s.save(*sessionPath); err != nil {
				return err
			}
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

// keepSystem is --keep's default: a shift keeps the system message.
const keepSystem = -2

// chatShift is the CLI's context-shift choice: off, or on keeping keep
// prompt tokens besides BOS (-1: the whole first prompt; keepSystem: the
// system message).
type chatShift struct {
	on   bool
	keep int
}

// chatSession is a conversation with one loaded model on an
// engine.Session. Without context shift each turn re-renders the whole
// conversation and the session reuses the prefix the cache holds; with it
// the conversation streams on (each turn appends what the template adds
// for the new message, as llama-cli), since a shifted cache no longer
// holds a prefix of the rendered conversation.
type chatSession struct {
	format   *engine.ChatFormat
	sess     *engine.Session
	sampler  *sample.Sampler
	shift    chatShift
	messages []chat.Message
	lastKeep int // prompt tokens the last turn reused from the context
}

func newChatSession(f *gguf.File, tok *tokenizer.Tokenizer, e *engine.Engine, p sample.Params, stderr io.Writer, sh chatShift) (*chatSession, error) {
	format, warning, err := engine.NewChatFormat(f, tok)
	if err != nil {
		return nil, err
	}
	if warning != "" {
		fmt.Fprintln(stderr, "warning:", warning)
	}
	sm, err := sample.New(e.Config().NVocab, p)
	if err != nil {
		return nil, err
	}
	sess, err := engine.NewSession(e, engine.SessionOptions{ContextShift: sh.on})
	if err != nil {
		return nil, err
	}
	return &chatSession{format: format, sess: sess, sampler: sm, shift: sh}, nil
}

// turn adds a user message, streams the reply to w and records it; it
// returns the reply's tokens.
func (s *chatSession) turn(ctx context.Context, user string, n int, stops []string, w io.Writer) ([]int32, error) {
	s.messages = append(s.messages, chat.Message{Role: "user", Content: user})
	req := engine.GenerateRequest{MaxTokens: n, Sampler: s.sampler, Stop: stops,
		OnToken: func(_ int32, text string) error { _, err := io.WriteString(w, text); return err }}
	var err error
	first := len(s.sess.Tokens()) == 0
	if s.shift.on && !first {
		req.Append = true
		req.Prompt, err = s.format.Next(s.messages)
	} else {
		req.Prompt, err = s.format.Prompt(s.messages)
	}
	if err != nil {
		return nil, err
	}
	if s.shift.on && first {
		s.setKeep(req.Prompt)
	}
	res, err := s.sess.Generate(ctx, req)
	if err != nil {
		return nil, err
	}
	s.lastKeep = res.Reused
	s.messages = append(s.messages, chat.Message{Role: "assistant", Content: res.Text})
	if s.shift.on {
		// The conversation streams on: the next turn's text is what the
		// template adds after the last exchange, so only that (and a
		// system message, which templates treat apart) is kept, and a
		// long chat's memory and rendering time stay flat.
		sys := 0
		if len(s.messages) > 0 && s.messages[0].Role == "system" {
			sys = 1
		}
		if n := len(s.messages); n-sys > 2 {
			s.messages = append(s.messages[:sys], s.messages[n-2:]...)
		}
	}
	return res.Tokens, nil
}

// setKeep fixes the tokens a shift keeps from the first prompt, as
// llama-cli: --keep N keeps N tokens plus BOS, -1 (or more than the prompt
// has) the whole prompt. The default keeps the tokens the system message
// renders to (their common prefix with the prompt), or BOS alone.
func (s *chatSession) setKeep(prompt []int32) {
	keep := s.shift.keep
	bos := 0
	if tok, _ := s.sess.Engine().Tokenizer(); tok != nil && tok.AddBOS() {
		bos = 1
	}
	if keep == keepSystem {
		keep = 0
		if len(s.messages) > 0 && s.messages[0].Role == "system" {
			f := *s.format
			f.Options.AddGenerationPrompt = false
			if sys, err := f.Prompt(s.messages[:1]); err == nil {
				for keep < len(sys) && keep < len(prompt) && sys[keep] == prompt[keep] {
					keep++
				}
				keep = max(keep-bos, 0)
			}
		}
	}
	if keep < 0 || keep+bos > len(prompt) {
		keep = len(prompt)
	} else {
		keep += bos
	}
	s.sess.SetNKeep(keep)
}

// chatMeta is what a session file keeps beside the cache: the messages
// (re-rendered by the next turn without context shift) and the tokens a
// shift keeps.
type chatMeta struct {
	Messages []chat.Message `json:"messages"`
	Keep     int            `json:"keep"`
}

// save writes the session to path through a temporary file, so that an
// interrupted save leaves the previous one.
func (s *chatSession) save(path string) error {
	meta, err := json.Marshal(chatMeta{Messages: s.messages, Keep: s.sess.NKeep()})
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := s.sess.Save(w, meta); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// restore loads the session saved at path; a missing file is a new
// session (false, nil).
func (s *chatSession) restore(path string) (bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	hd, err := s.sess.Restore(f)
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	var meta chatMeta
	if err := json.Unmarshal(hd.Meta, &meta); err != nil {
		s.sess.Reset()
		return false, fmt.Errorf("%s: not a chat session: %w", path, err)
	}
	s.messages = meta.Messages
	s.sess.SetNKeep(meta.Keep)
	return true, nil
}
