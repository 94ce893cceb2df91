package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestChatTemplateCommand: the Llama 3 vocabulary fixture's template starts
// with bos_token, which the command must fill with that vocabulary's BOS text
// (<|begin_of_text|>, id 128000). The expected prompt is the Llama 3 format
// as Meta documents it and llama.cpp's built-in llama3 template writes it. A
// model without a template gets ChatML and a warning. Rendering itself is checked against @huggingface/jinja in
// package chat.
func TestChatTemplateCommand(t *testing.T) {
	msgs := `[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"}]`
	var out, errOut bytes.Buffer
	if err := chatTemplateCmd([]string{"--model", models + "vocab-llama3-bpe.gguf"}, strings.NewReader(msgs), &out, &errOut); err != nil {
		t.Fatal(err)
	}
	want := "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>" +
		"<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
	if out.String() != want || errOut.Len() != 0 {
		t.Errorf("got %q (stderr %q), want %q", out.String(), errOut.String(), want)
	}
	out.Reset()
	if err := chatTemplateCmd([]string{"--model", models + "vocab-llama-spm.gguf", "--no-generation-prompt"}, strings.NewReader(msgs), &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "ChatML") || !strings.HasSuffix(out.String(), "Hi<|im_end|>\n") {
		t.Errorf("fallback: stdout %q stderr %q", out.String(), errOut.String())
	}
	if err := chatTemplateCmd([]string{"--model", models + "vocab-llama3-bpe.gguf"}, strings.NewReader("{not json"), &out, &errOut); err == nil {
		t.Error("malformed messages accepted")
	}
}
