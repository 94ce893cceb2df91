package tokenizer

import (
	"testing"
	"unicode/utf8"
)

// TestDecoderHoldsBackPartialUTF8 streams the SentencePiece byte tokens of
// "🦙" (<0xF0><0x9F><0xA6><0x99>, the ids llama.cpp's fixture gives for it)
// and checks nothing is emitted until the sequence is complete.
func TestDecoderHoldsBackPartialUTF8(t *testing.T) {
	tok := loadTokenizer(t, "vocab-llama-spm")
	d := tok.NewDecoder(false)
	ids := []int32{15043, 29871, 243, 162, 169, 156, 11829} // "▁Hello", "▁", 🦙 as bytes, "▁llam"
	var got []string
	for _, id := range ids {
		got = append(got, d.Push(id))
	}
	want := []string{" Hello", " ", "", "", "", "🦙", " llam"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("push %d (id %d) = %q, want %q (all: %q)", i, ids[i], got[i], want[i], got)
		}
	}
	if rest := d.Flush(); rest != "" {
		t.Fatalf("flush = %q", rest)
	}
	// An incomplete sequence at the end comes out on Flush, and an invalid
	// byte is not held back (nothing could complete it).
	if s := d.Push(243); s != "" {
		t.Fatalf("lead byte emitted early: %q", s)
	}
	if s := d.Flush(); s != "\xf0" {
		t.Fatalf("flush = %q", s)
	}
	if s := d.Push(169); s != "\xa6" {
		t.Fatalf("stray continuation byte held: %q", s)
	}
}

// TestDecoderMatchesDetokenize checks that the stream, concatenated, equals
// Detokenize for a vocabulary without clean-up or space-prefix handling,
// and that every chunk is valid UTF-8 when the whole text is.
func TestDecoderMatchesDetokenize(t *testing.T) {
	tok := loadTokenizer(t, "vocab-qwen3-bpe")
	text := "<|im_start|>user\nnaïve café 日本語 🦙🚀 <think>x</think><|im_end|>"
	ids, err := tok.Encode(text, false, true)
	if err != nil {
		t.Fatal(err)
	}
	d := tok.NewDecoder(true)
	var all string
	for _, id := range ids {
		s := d.Push(id)
		if !utf8.ValidString(s) {
			t.Fatalf("chunk %q is not valid UTF-8", s)
		}
		all += s
	}
	all += d.Flush()
	if all != text || all != tok.Detokenize(ids, false, true) {
		t.Fatalf("stream %q, text %q", all, text)
	}
}
