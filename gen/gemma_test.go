package gen

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/webgguf/webgguf/chat"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/tokenizer"
)

// smallGemma is the gemma-3-270m preset (its 262 144-token padded vocab,
// special tokens and chat template) at a small shape.
func smallGemma(t *testing.T) Config {
	t.Helper()
	c, ok := Preset("gemma-3-270m")
	if !ok {
		t.Fatal("no gemma-3-270m preset")
	}
	c.NEmbd, c.NLayer, c.NHead, c.NHeadKV, c.HeadDim, c.NFF, c.Window = 64, 6, 2, 1, 64, 128, 4
	c.Type, c.Seed, c.Vocab = "q8_0", 3, filepath.Join("..", c.Vocab)
	return c
}

// gemmaPrompt renders a two-turn conversation with the model's template.
// (The BOS token's text in llama2.c's vocab is "\n<s>\n".)
func gemmaPrompt(t *testing.T, f *gguf.File, tok *tokenizer.Tokenizer) string {
	t.Helper()
	tmpl, _ := f.String("tokenizer.chat_template")
	bos := tok.TokenText(tok.BOS())
	text, err := chat.Render(tmpl, []chat.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Hello"},
		{Role: "assistant", Content: "Hi."}, {Role: "user", Content: "How are you?"}}, chat.Options{AddGenerationPrompt: true, BOSToken: bos})
	if err != nil {
		t.Fatal(err)
	}
	want := bos + "<start_of_turn>user\nBe brief.\n\nHello<end_of_turn>\n<start_of_turn>model\nHi.<end_of_turn>\n" +
		"<start_of_turn>user\nHow are you?<end_of_turn>\n<start_of_turn>model\n"
	if text != want {
		t.Fatalf("rendered %q, want %q", text, want)
	}
	return text
}

// TestGemmaVocabAndTemplate: the gemma presets write Gemma 3's chat
// template verbatim and its turn markers as control tokens in the
// padding, which our tokenizer reads as single tokens, <end_of_turn>
// ending generation.
func TestGemmaVocabAndTemplate(t *testing.T) {
	real, err := os.ReadFile(filepath.Join("..", "chat", "testdata", "templates", "gemma3-it.jinja"))
	if err != nil {
		t.Fatal(err)
	}
	if gemmaChatTemplate != string(real) {
		t.Error("gemmaChatTemplate differs from chat/testdata/templates/gemma3-it.jinja (google/gemma-3-*-it)")
	}
	raw := generateBytes(t, smallGemma(t))
	f, err := gguf.Open(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	toks, _ := f.Strings("tokenizer.ggml.tokens")
	types, _ := f.Ints("tokenizer.ggml.token_type")
	if len(toks) != 262144 || toks[32000] != "<start_of_turn>" || toks[32001] != "<end_of_turn>" || toks[32002] != "[PAD32002]" ||
		types[32000] != tokenTypeControl || types[32001] != tokenTypeControl || types[32002] != tokenTypeUnused {
		t.Fatalf("vocab: %d tokens, 32000-32002 %q %q %q types %d %d %d", len(toks), toks[32000], toks[32001], toks[32002], types[32000], types[32001], types[32002])
	}
	for _, k := range []string{"gemma3.attention.sliding_window", "gemma3.attention.key_length", "gemma3.attention.value_length"} {
		if v, ok := f.Uint(k); !ok || v != 64 && k != "gemma3.attention.sliding_window" || v != 4 && k == "gemma3.attention.sliding_window" {
			t.Errorf("%s = %v", k, v)
		}
	}
	tok, err := tokenizer.FromGGUF(f)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := tok.Encode(gemmaPrompt(t, f, tok), false, true)
	if err != nil {
		t.Fatal(err)
	}
	if ids[0] != 1 || ids[1] != 32000 || slices.Index(ids, 32001) < 0 || ids[len(ids)-1] == 32001 {
		t.Errorf("tokens %v: want BOS, <start_of_turn> = 32000, <end_of_turn> = 32001", ids)
	}
	if !tok.IsEOG(32001) || tok.IsEOG(32000) {
		t.Error("<end_of_turn> does not end generation, or <start_of_turn> does")
	}
	// Without padding there is no room: no specials, and no error.
	c := smallConfig("gemma3", "q8_0")
	c.Specials, c.ChatTemplate = gemmaSpecials, gemmaChatTemplate
	raw = generateBytes(t, c)
	f, _ = gguf.Open(bytes.NewReader(raw), int64(len(raw)))
	if toks, _ := f.Strings("tokenizer.ggml.tokens"); len(toks) != 4096 || slices.Contains(toks, "<end_of_turn>") {
		t.Errorf("unpadded vocab: %d tokens", len(toks))
	}
}
