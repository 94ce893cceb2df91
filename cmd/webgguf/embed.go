package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/refcheck"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/tokenizer"
)

func init() {
	commands["embed"] = command{
		summary: "print the sequence embedding of a text (or of each line of a file) as JSON",
		run:     func(args []string) error { return embedCmd(context.Background(), args, os.Stdout, os.Stderr) },
	}
}

// embedOutput is what embed prints: one entry per input, in order.
type embedOutput struct {
	Model   string       `json:"model"`
	Pooling string       `json:"pooling"`
	NEmbd   int          `json:"n_embd"`
	Data    []embedEntry `json:"data"`
}

type embedEntry struct {
	Input     string    `json:"input"`
	Tokens    int       `json:"tokens"`
	Embedding []float32 `json:"embedding"`
}

// embedCmd implements `webgguf embed --model F (--input T | --file F)
// [--normalize=false] [--backend cpu|gpu]`.
func embedCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("embed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	modelPath := fs.String("model", "", "GGUF embedding model (required)")
	input := fs.String("input", "", "text to embed")
	file := fs.String("file", "", "file of texts to embed, one a line (\\n \\t \\\\ unescaped)")
	normalize := fs.Bool("normalize", true, "scale each vector to unit L2 norm (false: the pooled vector as llama.cpp returns it)")
	threads := fs.Int("threads", 0, "CPU threads (default: all)")
	backendName := fs.String("backend", "cpu", backendFlagHelp)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *modelPath == "" || (*input == "") == (*file == "") || fs.NArg() != 0 {
		return errors.New("usage: webgguf embed --model F (--input TEXT | --file F) [--normalize=false] [--backend cpu|gpu]")
	}
	texts := []string{*input}
	if *file != "" {
		var err error
		if texts, err = readLines(*file); err != nil {
			return err
		}
	}
	f, err := gguf.OpenPath(*modelPath)
	if err != nil {
		return err
	}
	defer f.Close()
	be, err := openBackend(ctx, *backendName)
	if err != nil {
		return err
	}
	e, err := engine.Load(ctx, f, engine.Options{Backend: be, Threads: *threads})
	if err != nil {
		return err
	}
	defer e.Close()
	tok, err := e.Tokenizer()
	if err != nil {
		return err
	}
	out := embedOutput{Model: *modelPath, Pooling: e.Config().Pooling.String(), NEmbd: e.Config().NEmbd}
	for _, text := range texts {
		ids, err := tok.Encode(text, true, true)
		if err != nil {
			return err
		}
		v, err := e.EmbedIDs(ctx, ids)
		if err != nil {
			return fmt.Errorf("%q: %w", text, err)
		}
		if *normalize {
			normalizeL2(v)
		}
		out.Data = append(out.Data, embedEntry{Input: text, Tokens: len(ids), Embedding: v})
	}
	enc := json.NewEncoder(stdout)
	return enc.Encode(out)
}

// normalizeL2 scales v to unit Euclidean norm (llama.cpp's
// common_embd_normalize with embd_norm 2); a zero vector stays zero.
func normalizeL2(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return
	}
	s := 1 / math.Sqrt(sum)
	for i := range v {
		v[i] = float32(float64(v[i]) * s)
	}
}

// embeddingFile is the fixtures' embedding schema (FAMILIES.md): the
// tokenizations of refcheck's schema, and per prompt its ids and pooled,
// un-normalized embedding.
type embeddingFile struct {
	Model    string              `json:"model"`
	NVocab   int                 `json:"n_vocab"`
	Tokenize []refcheck.Tokenize `json:"tokenize"`
	Prompts  []embeddingPrompt   `json:"prompts"`
}

type embeddingPrompt struct {
	Prompt    string    `json:"prompt"`
	IDs       []int32   `json:"ids"`
	NEmbd     int       `json:"n_embd"`
	Pooling   *int      `json:"pooling,omitempty"`
	Embedding []float64 `json:"embedding"`
}

// evalEmbeddings is eval on an embedding model: it writes the embedding
// schema (tokenize[] as for any model, then each prompt's embedding) and,
// with ref and exact, judges it.
func evalEmbeddings(ctx context.Context, e *engine.Engine, tok *tokenizer.Tokenizer, res refcheck.File, prompts []string,
	out, refPath, exactPath string, w io.Writer) error {
	ef := embeddingFile{Model: res.Model, NVocab: res.NVocab, Tokenize: res.Tokenize, Prompts: []embeddingPrompt{}}
	pooling := int(e.Config().Pooling)
	for _, text := range prompts {
		ids, err := tok.Encode(text, true, true)
		if err != nil {
			return fmt.Errorf("prompt %q: %w", text, err)
		}
		v, err := e.EmbedIDs(ctx, ids)
		if err != nil {
			return fmt.Errorf("prompt %q: %w", text, err)
		}
		p := embeddingPrompt{Prompt: text, IDs: nonNil(ids), NEmbd: len(v), Pooling: &pooling, Embedding: make([]float64, len(v))}
		for i, x := range v {
			p.Embedding[i] = float64(x)
		}
		ef.Prompts = append(ef.Prompts, p)
	}
	b, err := json.Marshal(ef)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
		return err
	}
	if refPath != "" {
		return judgeEmbeddingFile(out, refPath, exactPath, w)
	}
	return nil
}

// isEmbeddingFile reports whether an eval JSON's prompts carry embeddings.
func isEmbeddingFile(path string) bool {
	f, err := readEmbeddingFile(path)
	return err == nil && len(f.Prompts) > 0 && f.Prompts[0].Embedding != nil
}

func readEmbeddingFile(path string) (*embeddingFile, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f embeddingFile
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &f, nil
}

// judgeEmbeddingFile compares ours with llama.cpp's ref field by field
// (tokenizations, prompts, ids, n_embd, pooling) and the embeddings by the
// fixtures' rule: max |component difference| from the float64 exact file,
// over all prompts, at most max(1e-3, 1.5 × llama.cpp's own).
func judgeEmbeddingFile(oursPath, refPath, exactPath string, w io.Writer) error {
	var files [3]*embeddingFile
	for i, p := range []string{oursPath, refPath, exactPath} {
		f, err := readEmbeddingFile(p)
		if err != nil {
			return err
		}
		files[i] = f
	}
	ours, ref, exact := files[0], files[1], files[2]
	var fails []string
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	if len(ours.Tokenize) != len(ref.Tokenize) {
		fail("%d tokenize entries, llama.cpp %d", len(ours.Tokenize), len(ref.Tokenize))
	}
	for i := range min(len(ours.Tokenize), len(ref.Tokenize)) {
		o, r := ours.Tokenize[i], ref.Tokenize[i]
		if o.Text != r.Text || o.ParseSpecial != r.ParseSpecial || !slices.Equal(o.IDs, r.IDs) {
			fail("tokenize %d (%q, parse_special %v): ids %v, llama.cpp %v", i, r.Text, r.ParseSpecial, o.IDs, r.IDs)
		}
	}
	if len(ours.Prompts) != len(ref.Prompts) || len(exact.Prompts) != len(ref.Prompts) {
		return fmt.Errorf("prompts: ours %d, llama.cpp %d, exact %d", len(ours.Prompts), len(ref.Prompts), len(exact.Prompts))
	}
	var dev, llamaDev float64
	for i, r := range ref.Prompts {
		o, x := ours.Prompts[i], exact.Prompts[i]
		switch {
		case o.Prompt != r.Prompt:
			fail("prompt %d: %q, llama.cpp %q", i, o.Prompt, r.Prompt)
		case !slices.Equal(o.IDs, r.IDs):
			fail("prompt %d: ids %v, llama.cpp %v", i, o.IDs, r.IDs)
		case o.NEmbd != r.NEmbd || len(o.Embedding) != len(x.Embedding) || len(r.Embedding) != len(x.Embedding):
			fail("prompt %d: n_embd %d (%d values), llama.cpp %d, exact %d values", i, o.NEmbd, len(o.Embedding), r.NEmbd, len(x.Embedding))
			continue
		case r.Pooling != nil && (o.Pooling == nil || *o.Pooling != *r.Pooling):
			fail("prompt %d: pooling %v, llama.cpp %d", i, o.Pooling, *r.Pooling)
		}
		for j, v := range x.Embedding {
			dev = max(dev, math.Abs(o.Embedding[j]-v))
			llamaDev = max(llamaDev, math.Abs(r.Embedding[j]-v))
		}
	}
	tol := max(1e-3, 1.5*llamaDev)
	if dev > tol {
		fail("embedding max |diff| %.3g exceeds %.3g", dev, tol)
	}
	fmt.Fprintf(w, "embeddings: tolerance %.4g (llama.cpp max |diff| %.4g); ours max |diff| %.4g over %d prompts\n", tol, llamaDev, dev, len(ref.Prompts))
	for _, f := range fails {
		fmt.Fprintln(w, "FAIL", f)
	}
	if len(fails) > 0 {
		return fmt.Errorf("%d failures against %s", len(fails), exactPath)
	}
	return nil
}
