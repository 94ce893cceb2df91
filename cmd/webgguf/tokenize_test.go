package main

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestTokenizeCommand checks the subcommand against the first prompt of the
// llama.cpp model fixture (BOS added, special tokens parsed) and decodes
// the ids back.
func TestTokenizeCommand(t *testing.T) {
	raw, err := os.ReadFile("../../testdata/ref/tiny-qwen3-q8_0.ref.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Prompts []struct {
			Prompt string  `json:"prompt"`
			IDs    []int32 `json:"ids"`
		} `json:"prompts"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil || len(ref.Prompts) == 0 {
		t.Fatalf("fixture: %v", err)
	}
	p := ref.Prompts[0]
	var out bytes.Buffer
	if err := tokenizeCmd([]string{"--model", models + "tiny-qwen3-q8_0.gguf", "--special", "--json", p.Prompt}, &out); err != nil {
		t.Fatal(err)
	}
	var got struct {
		IDs    []int32  `json:"ids"`
		Pieces []string `json:"pieces"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.IDs, p.IDs) || len(got.Pieces) != len(got.IDs) {
		t.Fatalf("ids %v, llama.cpp %v", got.IDs, p.IDs)
	}
	// Byte-level BPE is lossless: decoding the ids of any text with
	// special tokens rendered gives the text back.
	const text = "<|im_start|>user\nHi, naïve 日本語 😀<|im_end|>"
	out.Reset()
	if err := tokenizeCmd([]string{"--model", models + "vocab-qwen3-bpe.gguf", "--special", "--no-add", "--json", text}, &out); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, id := range got.IDs {
		ids = append(ids, strconv.Itoa(int(id)))
	}
	out.Reset()
	if err := tokenizeCmd([]string{"--model", models + "vocab-qwen3-bpe.gguf", "--decode", "--special", strings.Join(ids, ",")}, &out); err != nil {
		t.Fatal(err)
	}
	if dec := strings.TrimSuffix(out.String(), "\n"); dec != text {
		t.Fatalf("decode gave %q, want %q", dec, text)
	}
	if err := tokenizeCmd([]string{"--model", models + "vocab-qwen3-bpe.gguf", "--decode", "1,999999999"}, &out); err == nil {
		t.Fatal("out-of-range id accepted")
	}
}
