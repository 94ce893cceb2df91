package tokenizer

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestOracleUnicodeVersion pins the code points where Go's Unicode 15.0
// tables and llama.cpp's (15.1) differ, plus some Unicode 16 letters that
// llama.cpp does not know: "x<c>'s" splits the contraction off only when
// <c> is a letter, so llama.cpp's ids reveal its category.
func TestOracleUnicodeVersion(t *testing.T) {
	o := startOracle(t)
	h, err := o.Load(filepath.Join("testdata", "models", "gotiny-q4_k_m.gguf"), true)
	if err != nil {
		t.Fatal(err)
	}
	tok := loadTokenizer(t, "gotiny-q4_k_m")
	for _, r := range []rune{0x2EBF0, 0x2EC00, 0x2EE5D, 0x2EE5E, 0x2FFC, 0x2FFF, 0x31EF, 0x10D4A, 0x11380, 0x16D43, 0x1CC00, 0x4E00, 0x0378} {
		s := "a" + string(r) + "b 'x" + string(r) + "'s"
		got, err := tok.Encode(s, false, false)
		if err != nil {
			t.Fatal(err)
		}
		want, err := o.Tokenize(h, s, false, false)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%U: got %v, llama.cpp %v", r, got, want)
		}
	}
}
