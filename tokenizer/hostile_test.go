package tokenizer

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/webgguf/webgguf/gguf"
)

// hostileFile writes a small GGUF vocabulary (SentencePiece unless set
// overrides tokenizer.ggml.model) with the keys of set added or replaced.
func hostileFile(t *testing.T, set ...gguf.KV) *gguf.File {
	t.Helper()
	kv := []gguf.KV{
		{Key: "tokenizer.ggml.model", Value: gguf.ValueOf("llama")},
		{Key: "tokenizer.ggml.tokens", Value: gguf.ValueOf([]string{"<unk>", "<s>", "</s>", "▁a"})},
		{Key: "tokenizer.ggml.scores", Value: gguf.ValueOf([]float32{0, 0, 0, -1})},
		{Key: "tokenizer.ggml.token_type", Value: gguf.ValueOf([]int32{2, 3, 3, 1})},
	}
	for _, s := range set {
		i := slices.IndexFunc(kv, func(x gguf.KV) bool { return x.Key == s.Key })
		if i < 0 {
			kv = append(kv, s)
		} else {
			kv[i] = s
		}
	}
	var buf bytes.Buffer
	if err := gguf.Write(&buf, kv, nil, 0); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func kv(key string, v any) gguf.KV { return gguf.KV{Key: key, Value: gguf.ValueOf(v)} }

// TestHostileVocabRejected: metadata that would make tokenization or
// generation silently wrong is a *MetadataError naming the key (and the
// array index where there is one). Before, out-of-range special ids fell
// back to per-model defaults (SentencePiece's BOS 1, BPE's EOS 11: unrelated
// tokens), NaN scores made SentencePiece's merge order arbitrary, and an
// int64 token type wrapped into a valid one.
func TestHostileVocabRejected(t *testing.T) {
	cases := []struct {
		name  string
		set   []gguf.KV
		key   string
		index int
	}{
		{"bos outside", []gguf.KV{kv("tokenizer.ggml.bos_token_id", uint32(4))}, "tokenizer.ggml.bos_token_id", -1},
		{"eos outside", []gguf.KV{kv("tokenizer.ggml.eos_token_id", uint32(1000))}, "tokenizer.ggml.eos_token_id", -1},
		{"eot at uint32 max", []gguf.KV{kv("tokenizer.ggml.eot_token_id", uint32(math.MaxUint32))}, "tokenizer.ggml.eot_token_id", -1},
		{"eom at uint64 max", []gguf.KV{kv("tokenizer.ggml.eom_token_id", uint64(math.MaxUint64))}, "tokenizer.ggml.eom_token_id", -1},
		{"unk outside", []gguf.KV{kv("tokenizer.ggml.unknown_token_id", uint32(4))}, "tokenizer.ggml.unknown_token_id", -1},
		{"NaN score", []gguf.KV{kv("tokenizer.ggml.scores", []float32{0, 0, float32(math.NaN()), -1})}, "tokenizer.ggml.scores", 2},
		{"token type wraps int32", []gguf.KV{kv("tokenizer.ggml.token_type", []int64{2, 3, 1<<32 + 3, 1})}, "tokenizer.ggml.token_type", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := FromGGUF(hostileFile(t, c.set...))
			var me *MetadataError
			if !errors.As(err, &me) || me.Key != c.key || me.Index != c.index {
				t.Fatalf("got %v, want *MetadataError for %s[%d]", err, c.key, c.index)
			}
		})
	}
}

// TestHostileVocabWarned: what is odd but cannot change a token sequence
// loads, tokenizes as without it, and is reported by Warnings under its key.
func TestHostileVocabWarned(t *testing.T) {
	gpt2 := []gguf.KV{
		kv("tokenizer.ggml.model", "gpt2"), kv("tokenizer.ggml.pre", "gpt-2"),
		kv("tokenizer.ggml.tokens", []string{"a", "b", "ab", "<|end|>"}),
		kv("tokenizer.ggml.token_type", []int32{1, 1, 1, 3}),
		kv("tokenizer.ggml.merges", []string{"a b"}),
		kv("tokenizer.ggml.bos_token_id", uint32(3)), kv("tokenizer.ggml.eos_token_id", uint32(3)),
	}
	with := func(base []gguf.KV, set ...gguf.KV) []gguf.KV { return append(slices.Clone(base), set...) }
	cases := []struct {
		name string
		set  []gguf.KV
		key  string // in the warning
	}{
		{"pad outside", []gguf.KV{kv("tokenizer.ggml.padding_token_id", uint32(4))}, "tokenizer.ggml.padding_token_id"},
		{"sep outside", []gguf.KV{kv("tokenizer.ggml.seperator_token_id", uint32(math.MaxUint32))}, "tokenizer.ggml.seperator_token_id"},
		{"unknown token type", []gguf.KV{kv("tokenizer.ggml.token_type", []int32{2, 3, 3, 9})}, "tokenizer.ggml.token_type[3]"},
		{"negative token type", []gguf.KV{kv("tokenizer.ggml.token_type", []int32{2, 3, -1, 1})}, "tokenizer.ggml.token_type[2]"},
		{"gpt2 NaN score", with(gpt2, kv("tokenizer.ggml.scores", []float32{0, float32(math.NaN()), 0, 0})), "tokenizer.ggml.scores[1]"},
		{"gpt2 malformed merges", with(gpt2, kv("tokenizer.ggml.merges", []string{"a b", "ab", "a ", "", " b"})), "tokenizer.ggml.merges[1]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base, texts := []gguf.KV(nil), []string{"a", "a a", "<s>a</s>"}
			if strings.HasPrefix(c.name, "gpt2") {
				base, texts = gpt2, []string{"a", "ab", "aab", "ba<|end|>"}
			}
			clean, err := FromGGUF(hostileFile(t, base...))
			if err != nil {
				t.Fatal(err)
			}
			if w := clean.Warnings(); w != nil {
				t.Fatalf("clean vocabulary warned: %q", w)
			}
			tok, err := FromGGUF(hostileFile(t, c.set...))
			if err != nil {
				t.Fatalf("got %v, want a warning", err)
			}
			w := tok.Warnings()
			if len(w) != 1 || !strings.HasPrefix(w[0], c.key+":") {
				t.Fatalf("warnings %q, want one for %s", w, c.key)
			}
			for _, text := range texts {
				want, err1 := clean.Encode(text, true, true)
				got, err2 := tok.Encode(text, true, true)
				if err1 != nil || err2 != nil || !slices.Equal(got, want) || len(got) == 0 {
					t.Errorf("Encode(%q) = %v, %v; without the oddity %v, %v", text, got, err2, want, err1)
				}
			}
		})
	}
}

// TestOutOfRangeVocabIDs: a Vocab built by hand (not from a file) goes
// through the same rule: a used id outside the vocabulary is refused.
func TestOutOfRangeVocabIDs(t *testing.T) {
	v := &Vocab{Model: "llama", Tokens: []string{"<unk>", "<s>", "</s>", "▁a"}, BOS: 4, EOS: NoToken, EOT: NoToken, EOM: NoToken, UNK: NoToken, SEP: NoToken, PAD: NoToken}
	var me *MetadataError
	if _, err := New(v); !errors.As(err, &me) || me.Key != "tokenizer.ggml.bos_token_id" {
		t.Fatalf("got %v", err)
	}
	v.BOS, v.PAD = NoToken, 99
	tok, err := New(v)
	if err != nil || len(tok.Warnings()) != 1 {
		t.Fatalf("got %v, warnings %q", err, tok.Warnings())
	}
}
