package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/sample"
	"github.com/webgguf/webgguf/sample/grammar"
	"github.com/webgguf/webgguf/sample/jsonschema"
	"github.com/webgguf/webgguf/tokenizer"
)

func init() {
	commands["run"] = command{
		summary: "stream a continuation of --prompt (CPU backend)",
		run: func(args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			return runCmd(ctx, args, os.Stdout, os.Stderr)
		},
	}
}

// runCmd implements `webgguf run --model F --prompt T [-n N]`: the prompt
// is tokenized as llama.cpp does (BOS as the model asks, special tokens
// parsed), and the continuation is printed token by token until N tokens or
// an end-of-generation token. Timings go to stderr. --grammar constrains
// the output to a GBNF grammar (sample/grammar, as llama.cpp's --grammar
// -file), --json-schema to a JSON Schema (converted by sample/jsonschema,
// as llama.cpp's --json-schema-file): greedy unless --temp is set.
func runCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	modelPath := fs.String("model", "", "GGUF model (required)")
	prompt := fs.String("prompt", "", "prompt text (required; \\n \\t \\\\ are unescaped)")
	n := fs.Int("n", 128, "tokens to generate at most")
	nCtx := fs.Int("ctx", 0, "context length (default: the model's, at most 4096)")
	threads := fs.Int("threads", 0, "CPU threads (default: all)")
	backendName := fs.String("backend", "cpu", backendFlagHelp)
	temp := fs.Float64("temp", 0, "temperature; 0 is greedy")
	topK := fs.Int("top-k", 40, "top-k (with --temp > 0)")
	topP := fs.Float64("top-p", 0.95, "top-p (with --temp > 0)")
	minP := fs.Float64("min-p", 0.05, "min-p (with --temp > 0)")
	seed := fs.Uint("seed", 0, "sampling seed")
	quiet := fs.Bool("quiet", false, "do not echo the prompt or print timings")
	grammarPath := fs.String("grammar", "", "GBNF grammar file (llama.cpp syntax) constraining the output")
	schemaPath := fs.String("json-schema", "", "JSON Schema file constraining the output to JSON it accepts")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *modelPath == "" || *prompt == "" || fs.NArg() != 0 {
		return errors.New("usage: webgguf run --model F --prompt T [-n N] [--temp T] [--seed S] [--grammar FILE | --json-schema FILE]")
	}
	if *grammarPath != "" && *schemaPath != "" {
		return errors.New("run: --grammar and --json-schema exclude each other")
	}
	var comp *grammar.Compiled
	if *grammarPath != "" {
		src, err := os.ReadFile(*grammarPath)
		if err != nil {
			return err
		}
		if comp, err = grammar.ParseCompile(string(src)); err != nil {
			return fmt.Errorf("%s: %w", *grammarPath, err)
		}
	}
	if *schemaPath != "" {
		src, err := os.ReadFile(*schemaPath)
		if err != nil {
			return err
		}
		g, err := jsonschema.ToGrammar(src)
		if err != nil {
			return fmt.Errorf("%s: %w", *schemaPath, err)
		}
		if comp, err = grammar.ParseCompile(g); err != nil {
			return fmt.Errorf("%s: %w", *schemaPath, err)
		}
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
	t0 := time.Now()
	be, err := openBackend(ctx, *backendName)
	if err != nil {
		return err
	}
	e, err := engine.Load(ctx, f, engine.Options{NCtx: *nCtx, Threads: *threads, Backend: be})
	if err != nil {
		return err
	}
	defer e.Close()
	tLoad := time.Since(t0)
	ids, err := tok.Encode(unescape(*prompt), true, true)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return errors.New("the prompt encodes to no tokens")
	}
	var s engine.Sampler = engine.Greedy{}
	if *temp > 0 || comp != nil {
		p := sample.Defaults()
		p.Temperature, p.TopK, p.TopP, p.MinP, p.Seed = float32(*temp), *topK, float32(*topP), float32(*minP), uint32(*seed)
		ss, err := sample.New(e.Config().NVocab, p)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if err := ss.Accept(id); err != nil {
				return err
			}
		}
		s = ss
		if comp != nil {
			v := grammar.TokenizerVocab(tok, e.Config().NVocab)
			if s, err = grammar.NewSampler(grammar.NewMatcher(comp, v), ss); err != nil {
				return err
			}
		}
	}
	if !*quiet {
		fmt.Fprint(stdout, tok.Decode(ids))
	}
	dec := tok.NewDecoder(false)
	var tFirst time.Duration
	count := 0
	t1 := time.Now()
	err = e.Generate(ctx, ids, *n, s, func(t int32) bool {
		if count == 0 {
			tFirst = time.Since(t1)
		}
		count++
		if tok.IsEOG(t) {
			return false
		}
		fmt.Fprint(stdout, dec.Push(t))
		return true
	})
	fmt.Fprintln(stdout, dec.Flush())
	if err != nil {
		return err
	}
	if !*quiet {
		info := e.Info()
		tGen := time.Since(t1) - tFirst
		fmt.Fprintf(stderr, "\n[%s backend, %.1f MiB weights + %.1f MiB KV, loaded in %v]\n", info.Backend, mib(info.Plan.WeightBytes), mib(info.Plan.KVBytes), tLoad.Round(time.Millisecond))
		fmt.Fprintf(stderr, "[prompt %d tokens: %.1f tok/s; generated %d tokens: %.1f tok/s]\n",
			len(ids), float64(len(ids))/tFirst.Seconds(), count, float64(count-1)/tGen.Seconds())
	}
	return nil
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }
