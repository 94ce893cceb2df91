package tokenizer

import "sort"

// WordPiece (tokenizer.ggml.model "bert"), as llama.cpp's
// llm_tokenizer_wpm_session: BERT's normalizer (NFD with the accents
// dropped, lowercase), a split at whitespace, punctuation, ASCII symbols
// and CJK ideographs, then a greedy longest match over the bytes of each
// word with "▁" prepended (the converter writes whole-word tokens with a
// "▁" prefix and continuation tokens without the "##"). A word that cannot
// be covered becomes one unknown token.

// wpmSession tokenizes raw-text fragments for t.
type wpmSession struct {
	t    *Tokenizer
	cpts []rune
	word []byte
}

func (s *wpmSession) tokenize(text string, out []int32) []int32 {
	t := s.t
	s.cpts, _ = decodeCpts(text, s.cpts[:0], nil)
	s.word = s.word[:0]
	flush := func() {
		if len(s.word) > 0 {
			out = s.matchWord(out)
			s.word = s.word[:0]
		}
	}
	for _, r := range s.cpts {
		if t.wpmStripAccents {
			r = nfd(r)
		}
		f := wpmFlags(r)
		if isWPMSpace(r) {
			flush()
			continue
		}
		if r == 0 || r == 0xFFFD || f&wpmControl != 0 {
			continue
		}
		if t.wpmStripAccents && f&wpmMark != 0 {
			continue
		}
		if t.wpmLowercase {
			r = toLower(r)
		}
		if f&wpmPunct != 0 || (r < 0x7F && f&wpmSymbol != 0) || isChineseChar(r) {
			// A word of its own.
			flush()
			s.word = appendCpt(s.word, r)
			flush()
			continue
		}
		s.word = appendCpt(s.word, r)
	}
	flush()
	return out
}

// matchWord appends the longest-match tokens of "▁"+s.word, or the unknown
// token if some position matches nothing (llama.cpp then discards the
// word's tokens so far).
func (s *wpmSession) matchWord(out []int32) []int32 {
	t := s.t
	word := "▁" + string(s.word)
	n := len(word)
	start := len(out)
	for i := 0; i < n; i++ {
		matched := false
		for j := min(n, i+t.maxTokenLen+1); j > i; j-- {
			if id, ok := t.tokenID.get(word[i:j]); ok {
				out = append(out, id)
				matched = true
				i = j - 1
				break
			}
		}
		if !matched {
			out = out[:start]
			break
		}
	}
	if len(out) == start && t.unk != NoToken {
		// llama.cpp would push LLAMA_TOKEN_NULL for a vocabulary without
		// an unknown token; the word is dropped instead.
		out = append(out, t.unk)
	}
	return out
}

// Category flags of wpmFlagRanges. WordPiece uses llama.cpp's own table
// rather than the package's Go-derived flags: its Unicode version differs,
// and an unassigned code point is UNDEFINED there (kept in the word, which
// then becomes [UNK]) rather than control (dropped).
const (
	wpmMark    = 0x10
	wpmPunct   = 0x20
	wpmSymbol  = 0x40
	wpmControl = 0x80
)

// wpmFlags returns llama.cpp's category flags of r.
func wpmFlags(r rune) uint32 {
	c := uint32(r)
	i := sort.Search(len(wpmFlagRanges), func(i int) bool { return wpmFlagRanges[i][0] > c }) - 1
	if i < 0 || r < 0 || r > 0x10FFFF {
		return 0x01
	}
	return wpmFlagRanges[i][1]
}

// isWPMSpace reports membership of llama.cpp's whitespace set.
func isWPMSpace(r rune) bool {
	c := uint32(r)
	i := sort.Search(len(wpmWhitespace), func(i int) bool { return wpmWhitespace[i] >= c })
	return i < len(wpmWhitespace) && wpmWhitespace[i] == c
}

// isChineseChar is llama.cpp's (and BERT's) CJK ideograph test, including
// its 0x2B920 lower bound where Unicode's block starts at 0x2B820.
func isChineseChar(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) ||
		(r >= 0x3400 && r <= 0x4DBF) ||
		(r >= 0x20000 && r <= 0x2A6DF) ||
		(r >= 0x2A700 && r <= 0x2B73F) ||
		(r >= 0x2B740 && r <= 0x2B81F) ||
		(r >= 0x2B920 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) ||
		(r >= 0x2F800 && r <= 0x2FA1F)
}

// nfd is llama.cpp's unicode_cpts_normalize_nfd for one code point: the
// first code point of its canonical decomposition.
func nfd(r rune) rune {
	c := uint32(r)
	i := sort.Search(len(nfdRanges), func(i int) bool { return nfdRanges[i][0] > c }) - 1
	if i >= 0 && nfdRanges[i][0] <= c && c <= nfdRanges[i][1] {
		return rune(nfdRanges[i][2])
	}
	return r
}

// toLower is llama.cpp's unicode_tolower.
func toLower(r rune) rune {
	if r >= 'A' && r <= 'Z' {
		return r + 32
	}
	if r < 0x80 {
		return r
	}
	c := uint32(r)
	i := sort.Search(len(lowerMap), func(i int) bool { return lowerMap[i][0] >= c })
	if i < len(lowerMap) && lowerMap[i][0] == c {
		return rune(lowerMap[i][1])
	}
	return r
}
