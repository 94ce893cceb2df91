package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/webgguf/webgguf/chat"
	"github.com/webgguf/webgguf/gguf"
)

func init() {
	commands["chat-template"] = command{
		summary: "render a model's chat template for a JSON list of messages",
		run:     func(args []string) error { return chatTemplateCmd(args, os.Stdin, os.Stdout, os.Stderr) },
	}
}

// chatTemplateCmd implements `webgguf chat-template --model F [--messages
// FILE]`: messages ([{"role": ..., "content": ...}, ...], OpenAI style, with
// optional tool_calls) come from FILE or stdin; the rendered prompt goes to
// stdout, a warning to stderr when the model has no template.
func chatTemplateCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("chat-template", flag.ContinueOnError)
	fs.SetOutput(stderr)
	modelPath := fs.String("model", "", "GGUF model (required)")
	msgPath := fs.String("messages", "", "JSON file of messages (default: stdin)")
	noGen := fs.Bool("no-generation-prompt", false, "do not end with the assistant's header")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *modelPath == "" || fs.NArg() != 0 {
		return errors.New("usage: webgguf chat-template --model F [--messages FILE] [--no-generation-prompt]")
	}
	f, err := gguf.OpenPath(*modelPath)
	if err != nil {
		return err
	}
	defer f.Close()
	tmpl, warning := chat.TemplateFor(f)
	if warning != "" {
		fmt.Fprintln(stderr, "warning:", warning)
	}
	var raw []byte
	if *msgPath != "" {
		raw, err = os.ReadFile(*msgPath)
	} else {
		raw, err = io.ReadAll(io.LimitReader(stdin, 64<<20))
	}
	if err != nil {
		return err
	}
	var msgs []chat.Message
	if err := json.Unmarshal(raw, &msgs); err != nil {
		return fmt.Errorf("messages: %w", err)
	}
	out, err := chat.Render(tmpl, msgs, chat.Options{
		AddGenerationPrompt: !*noGen,
		BOSToken:            tokenText(f, "tokenizer.ggml.bos_token_id"),
		EOSToken:            tokenText(f, "tokenizer.ggml.eos_token_id"),
	})
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, out)
	return err
}

// tokenText is the text of the token whose id the metadata key names, or "".
func tokenText(f *gguf.File, key string) string {
	id, ok := f.Uint(key)
	tokens, _ := f.Strings("tokenizer.ggml.tokens")
	if !ok || id >= uint64(len(tokens)) {
		return ""
	}
	return tokens[id]
}
