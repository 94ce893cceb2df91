package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/tokenizer"
)

func init() {
	commands["tokenize"] = command{
		summary: "tokenize TEXT (or --decode ids) with a model's vocabulary, like llama.cpp",
		run:     func(args []string) error { return tokenizeCmd(args, os.Stdout) },
	}
}

// tokenizeCmd implements `webgguf tokenize --model F [--special] [--no-add]
// [--json] [--decode] TEXT`.
func tokenizeCmd(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("tokenize", flag.ContinueOnError)
	fs.SetOutput(w)
	model := fs.String("model", "", "GGUF file whose tokenizer.ggml.* vocabulary to use (required)")
	special := fs.Bool("special", false, "parse special-token text such as <|im_start|> into those tokens, and show control tokens when decoding")
	noAdd := fs.Bool("no-add", false, "do not add BOS/EOS (by default they are added as the vocabulary asks)")
	asJSON := fs.Bool("json", false, "print {\"ids\":[...],\"pieces\":[...]} (or {\"text\":...} with --decode)")
	decode := fs.Bool("decode", false, "TEXT is a list of token ids (comma or space separated); print the detokenized text")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *model == "" || fs.NArg() == 0 {
		return errors.New("usage: webgguf tokenize --model F [--special] [--no-add] [--json] [--decode] TEXT")
	}
	text := strings.Join(fs.Args(), " ")
	f, err := gguf.OpenPath(*model)
	if err != nil {
		return err
	}
	defer f.Close()
	tok, err := tokenizer.FromGGUF(f)
	if err != nil {
		return err
	}
	if *decode {
		ids, err := parseIDs(text, tok.NumTokens())
		if err != nil {
			return err
		}
		out := tok.Detokenize(ids, false, *special)
		if *asJSON {
			return json.NewEncoder(w).Encode(map[string]string{"text": out})
		}
		_, err = fmt.Fprintln(w, out)
		return err
	}
	ids, err := tok.Encode(text, !*noAdd, *special)
	if err != nil {
		return err
	}
	pieces := make([]string, len(ids))
	for i, id := range ids {
		pieces[i] = tok.Piece(id, true)
	}
	if *asJSON {
		return json.NewEncoder(w).Encode(map[string]any{"ids": ids, "pieces": pieces})
	}
	fmt.Fprintf(w, "%d tokens\n", len(ids))
	for i, id := range ids {
		fmt.Fprintf(w, "%8d  %q\n", id, pieces[i])
	}
	return nil
}

// parseIDs reads token ids separated by commas and/or spaces, each in range.
func parseIDs(s string, n int) ([]int32, error) {
	var ids []int32
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '[' || r == ']' }) {
		v, err := strconv.ParseInt(f, 10, 32)
		if err != nil || v < 0 || v >= int64(n) {
			return nil, fmt.Errorf("bad token id %q (vocabulary has %d tokens)", f, n)
		}
		ids = append(ids, int32(v))
	}
	return ids, nil
}
