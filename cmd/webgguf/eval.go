package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/refcheck"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/tokenizer"
)

func init() {
	commands["eval"] = command{
		summary: "write tokenizations, teacher-forced logits and greedy text as JSON (llama.cpp fixture schema)",
		run:     func(args []string) error { return evalCmd(context.Background(), args, os.Stderr) },
	}
}

// evalTopK is the number of [id, logit] pairs per position, as the fixtures.
const evalTopK = 20

// evalCmd implements `webgguf eval --model F [--prompts P] [--tokens T]
// [--gen N] --out OUT.json`: the schema of testdata/ref/*.ref.json, so our
// output and llama.cpp's compare file to file.
func evalCmd(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	modelPath := fs.String("model", "", "GGUF model (or vocab-only GGUF) (required)")
	promptsPath := fs.String("prompts", "", "file of prompts, one a line (\\n \\t \\\\ unescaped)")
	tokensPath := fs.String("tokens", "", "file of strings to tokenize, one a line (\\n \\t \\\\ unescaped)")
	gen := fs.Int("gen", 32, "greedy tokens to generate after each prompt")
	out := fs.String("out", "", "output JSON file (required)")
	nCtx := fs.Int("ctx", 0, "context length (default: the model's, at most 4096)")
	threads := fs.Int("threads", 0, "CPU threads (default: all)")
	backendName := fs.String("backend", "cpu", backendFlagHelp)
	refPath := fs.String("ref", "", "llama.cpp's NAME.ref.json: with --exact, judge the output by the fixtures' rule")
	exactPath := fs.String("exact", "", "the float64 NAME.exact.json to judge against (with --ref)")
	in := fs.String("in", "", "judge this existing eval JSON (from any backend) instead of running a model")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if (*refPath == "") != (*exactPath == "") {
		return errors.New("--ref and --exact go together")
	}
	if *in != "" {
		if *refPath == "" {
			return errors.New("--in needs --ref and --exact")
		}
		return judgeFile(*in, *refPath, *exactPath, stderr)
	}
	if *modelPath == "" || *out == "" || fs.NArg() != 0 {
		return errors.New("usage: webgguf eval --model F [--prompts P] [--tokens T] [--gen N] --out OUT.json [--ref R --exact E]\n       webgguf eval --in OUT.json --ref R --exact E")
	}
	if *gen < 0 {
		return fmt.Errorf("--gen %d < 0", *gen)
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
	res := refcheck.File{Model: *modelPath, NVocab: tok.NumTokens(), TopK: evalTopK, Tokenize: []refcheck.Tokenize{}, Prompts: []refcheck.Prompt{}}
	if *tokensPath != "" {
		lines, err := readLines(*tokensPath)
		if err != nil {
			return err
		}
		for _, text := range lines {
			for _, special := range []bool{false, true} {
				ids, err := tok.Encode(text, false, special)
				if err != nil {
					return fmt.Errorf("tokenize %q: %w", text, err)
				}
				res.Tokenize = append(res.Tokenize, refcheck.Tokenize{Text: text, ParseSpecial: special, IDs: nonNil(ids)})
			}
		}
	}
	if *promptsPath != "" && len(f.Tensors) > 0 {
		lines, err := readLines(*promptsPath)
		if err != nil {
			return err
		}
		be, err := openBackend(ctx, *backendName)
		if err != nil {
			return err
		}
		e, err := engine.Load(ctx, f, engine.Options{NCtx: *nCtx, Threads: *threads, Backend: be})
		if err != nil {
			return err
		}
		defer e.Close()
		res.NVocab = e.Config().NVocab
		if e.Config().Embeddings {
			return evalEmbeddings(ctx, e, tok, res, lines, *out, *refPath, *exactPath, stderr)
		}
		for _, text := range lines {
			p, err := evalPrompt(ctx, e, tok, text, *gen)
			if err != nil {
				return fmt.Errorf("prompt %q: %w", text, err)
			}
			res.Prompts = append(res.Prompts, p)
		}
	}
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
		return err
	}
	if *refPath != "" {
		return judgeFile(*out, *refPath, *exactPath, stderr)
	}
	return nil
}

// judgeFile applies refcheck's rule to an eval JSON from its summaries and
// prints the verdict; failures make it return an error.
func judgeFile(oursPath, refPath, exactPath string, w io.Writer) error {
	if isEmbeddingFile(oursPath) {
		return judgeEmbeddingFile(oursPath, refPath, exactPath, w)
	}
	var files [3]*refcheck.File
	for i, p := range []string{oursPath, refPath, exactPath} {
		f, err := refcheck.Load(p)
		if err != nil {
			return err
		}
		files[i] = f
	}
	rep, greedy, err := refcheck.JudgeFiles(files[0], files[1], files[2])
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "tolerance %.4f (llama.cpp max dev %.4f); ours: max dev %.5f, lse dev %.5f; top-1 %d/%d where the margin exceeds it (%d near ties); greedy equals float64 for %v tokens\n",
		rep.Tol.Logit, rep.Tol.LlamaDev, rep.MaxDev, rep.MaxLSEDev, rep.Top1Equal, rep.Top1Checked, rep.NearTies, greedy)
	for _, f := range rep.Failures {
		fmt.Fprintln(w, "FAIL", f)
	}
	if !rep.OK() {
		return fmt.Errorf("%d failures against %s", len(rep.Failures), exactPath)
	}
	return nil
}

// evalPrompt tokenizes text as llama.cpp's fixtures did (BOS as the model
// asks, special tokens parsed), records every position's lse and top
// pairs, then greedily continues gen tokens from a fresh context.
func evalPrompt(ctx context.Context, e *engine.Engine, tok *tokenizer.Tokenizer, text string, gen int) (refcheck.Prompt, error) {
	ids, err := tok.Encode(text, true, true)
	if err != nil {
		return refcheck.Prompt{}, err
	}
	p := refcheck.Prompt{Prompt: text, IDs: nonNil(ids), Positions: []refcheck.Position{}, Greedy: []int32{}}
	if len(ids) == 0 {
		return p, nil
	}
	e.Reset()
	rows, err := e.Eval(ctx, ids, engine.LogitsAll)
	if err != nil {
		return p, err
	}
	for _, row := range rows {
		p.Positions = append(p.Positions, refcheck.Summarize(row, evalTopK))
	}
	e.Reset()
	var text2 strings.Builder
	err = e.Generate(ctx, ids, gen, engine.Greedy{}, func(t int32) bool {
		p.Greedy = append(p.Greedy, t)
		text2.WriteString(tok.Piece(t, false))
		return true
	})
	p.GreedyText = text2.String()
	return p, err
}

func nonNil(ids []int32) []int32 {
	if ids == nil {
		return []int32{}
	}
	return ids
}

// readLines returns the file's lines, unescaped; a final newline does not
// start an empty line.
func readLines(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s := strings.TrimSuffix(string(b), "\n")
	if s == "" {
		return nil, nil
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = unescape(l)
	}
	return lines, nil
}

// unescape turns \n, \t and \\ into newline, tab and backslash; other
// backslashes are kept as written.
func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case 'n':
				b.WriteByte('\n')
				i++
				continue
			case 't':
				b.WriteByte('\t')
				i++
				continue
			case '\\':
				b.WriteByte('\\')
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
