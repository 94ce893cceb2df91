package tokenizer

import (
	"bytes"
	"errors"
	"testing"

	"github.com/webgguf/webgguf/gguf"
)

func boolp(b bool) *bool { return &b }

// TestNewRejectsBadVocab checks that inconsistent metadata gives typed
// errors naming the key, never a panic.
func TestNewRejectsBadVocab(t *testing.T) {
	spm := func() *Vocab {
		return &Vocab{Model: "llama", Tokens: []string{"<unk>", "<s>", "</s>", "▁a"}, BOS: NoToken, EOS: NoToken, EOT: NoToken, EOM: NoToken, UNK: NoToken, SEP: NoToken, PAD: NoToken}
	}
	cases := []struct {
		name string
		edit func(v *Vocab)
		key  string // MetadataError key, or "" for UnsupportedError
	}{
		{"no tokens", func(v *Vocab) { v.Tokens = nil }, "tokenizer.ggml.tokens"},
		{"no model", func(v *Vocab) { v.Model = "" }, "tokenizer.ggml.model"},
		{"unknown model", func(v *Vocab) { v.Model = "bert-ish" }, ""},
		{"short scores", func(v *Vocab) { v.Scores = []float32{0, 1} }, "tokenizer.ggml.scores"},
		{"short types", func(v *Vocab) { v.Types = []TokenType{1} }, "tokenizer.ggml.token_type"},
		{"gpt2 without merges", func(v *Vocab) { v.Model = "gpt2"; v.Pre = "gpt-2" }, "tokenizer.ggml.merges"},
		{"unknown pre", func(v *Vocab) { v.Model = "gpt2"; v.Pre = "no-such-pre"; v.Merges = []string{"a b"} }, ""},
		{"add_bos without bos", func(v *Vocab) { v.Tokens = v.Tokens[:1]; v.AddBOS = boolp(true) }, "tokenizer.ggml.add_bos_token"},
		{"add_eos without eos", func(v *Vocab) { v.Tokens = v.Tokens[:2]; v.AddEOS = boolp(true) }, "tokenizer.ggml.add_eos_token"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := spm()
			c.edit(v)
			_, err := New(v)
			if c.key == "" {
				var ue *UnsupportedError
				if !errors.As(err, &ue) {
					t.Fatalf("got %v, want *UnsupportedError", err)
				}
				return
			}
			var me *MetadataError
			if !errors.As(err, &me) || me.Key != c.key {
				t.Fatalf("got %v, want *MetadataError for %s", err, c.key)
			}
		})
	}
}

// TestFromGGUFTypeErrors writes GGUF files whose tokenizer keys have the
// wrong types and checks the typed error names the key.
func TestFromGGUFTypeErrors(t *testing.T) {
	base := []gguf.KV{
		{Key: "tokenizer.ggml.model", Value: gguf.ValueOf("llama")},
		{Key: "tokenizer.ggml.tokens", Value: gguf.ValueOf([]string{"<unk>", "<s>", "</s>"})},
	}
	cases := []struct {
		key string
		val any
	}{
		{"tokenizer.ggml.model", uint32(3)},
		{"tokenizer.ggml.tokens", []uint32{1, 2, 3}},
		{"tokenizer.ggml.scores", []string{"x", "y", "z"}},
		{"tokenizer.ggml.token_type", []string{"x"}},
		{"tokenizer.ggml.merges", []int32{1}},
		{"tokenizer.ggml.bos_token_id", "one"},
		{"tokenizer.ggml.add_bos_token", "yes"},
	}
	for _, c := range cases {
		t.Run(c.key, func(t *testing.T) {
			var kv []gguf.KV
			for _, e := range base {
				if e.Key != c.key {
					kv = append(kv, e)
				}
			}
			kv = append(kv, gguf.KV{Key: c.key, Value: gguf.ValueOf(c.val)})
			var buf bytes.Buffer
			if err := gguf.Write(&buf, kv, nil, 0); err != nil {
				t.Fatal(err)
			}
			f, err := gguf.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
			if err != nil {
				t.Fatal(err)
			}
			_, err = FromGGUF(f)
			var me *MetadataError
			if !errors.As(err, &me) || me.Key != c.key {
				t.Fatalf("got %v, want *MetadataError for %s", err, c.key)
			}
		})
	}
}

// TestMissingByteToken: SentencePiece byte fallback without a <0xXX>
// token is a typed error (llama.cpp throws std::out_of_range).
func TestMissingByteToken(t *testing.T) {
	tok, err := New(&Vocab{Model: "llama", Tokens: []string{"<unk>", "<s>", "</s>", "▁a"}, BOS: NoToken, EOS: NoToken, EOT: NoToken, EOM: NoToken, UNK: NoToken, SEP: NoToken, PAD: NoToken})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := tok.Encode("a", false, false)
	if err != nil || len(ids) != 1 || ids[0] != 3 {
		t.Fatalf("Encode(a) = %v, %v; want [3]", ids, err)
	}
	var be *ByteTokenError
	if _, err := tok.Encode("b", false, false); !errors.As(err, &be) || be.Byte != 0xE2 {
		t.Fatalf("got %v, want *ByteTokenError for 0xE2 (the first byte of the space prefix ▁)", err)
	}
}

// FuzzEncode feeds arbitrary bytes (including invalid UTF-8) and random ids
// through every vocabulary: no panics, and byte-level BPE stays lossless on
// valid UTF-8 (a property of the format, not of this implementation).
func FuzzEncode(f *testing.F) {
	toks := map[string]*Tokenizer{}
	for _, m := range []string{"vocab-llama-spm", "vocab-qwen3-bpe", "gotiny-q4_k_m"} {
		toks[m] = loadTokenizer(f, m)
	}
	for _, s := range []string{"", "Hello world", "\xff\xfe", "a\xc3", "\xed\xa0\x80", "<|im_start|>x<|im_end|>", "  \n\t 123 'll", "日本\x80語"} {
		f.Add(s, uint16(7))
	}
	f.Fuzz(func(t *testing.T, s string, seed uint16) {
		for name, tok := range toks {
			for _, parse := range []bool{false, true} {
				ids, err := tok.Encode(s, parse, parse)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				for _, id := range ids {
					if id < 0 || int(id) >= tok.NumTokens() {
						t.Fatalf("%s: id %d out of range", name, id)
					}
				}
				text := tok.Detokenize(ids, false, parse)
				if tok.kind == kindBPE && !tok.cleanSpaces && isValidUTF8(s) && text != s {
					t.Fatalf("%s: %q decoded to %q", name, s, text)
				}
			}
			ids := []int32{int32(seed), -1, int32(tok.NumTokens()), int32(seed) * 3}
			_ = tok.Detokenize(ids, true, true)
			d := tok.NewDecoder(true)
			for _, id := range ids {
				_ = d.Push(id)
			}
			_ = d.Flush()
		}
	})
}

func isValidUTF8(s string) bool {
	for _, r := range s {
		if r == 0xFFFD {
			return false
		}
	}
	return true
}
