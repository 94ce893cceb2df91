package tokenizer

import "sort"

// DeepSeek-LLM's regexes (llama.cpp's LLAMA_VOCAB_PRE_TYPE_DEEPSEEK_LLM),
// applied in turn, each to the pieces the previous ones left:
//
//	[\r\n]
//	\s?[A-Za-zµÀ-ÖØ-öø-ƺ…𞤀-𞥃]+     (deepseekLetters)
//	\s?[!-/:-~！-／：-～‘-‟　-。]+     (isDeepseekPunct)
//	\s+$
//	[一-龥ࠀ-一가-퟿]+                (isDeepseekCJK)
//	\p{N}+
//
// The first five name no \p{..} class, so llama.cpp runs them through
// std::wregex on the code points with non-ASCII whitespace replaced by \v:
// \s is then ASCII whitespace or any Unicode White_Space (isSpace), and a
// whitespace code point inside a range (U+3000 in 　-。) never matches it.
// \p{N}+ runs on the "collapsed" text and matches \p{N} as elsewhere.

// deepseekLetters is the second regex's class as code point ranges: the
// cased letters (Lu, Ll, Lt) of Unicode 14 minus a few blocks, as DeepSeek's
// tokenizer.json spells them. Its source writes some members as characters
// with singleton decompositions (U+1F7D, U+1FBE, U+1FD3, U+1FDB, U+2126,
// U+212A); they are listed here by number so that no normalization of this
// file can turn them into their NFC equivalents.
var deepseekLetters = [][2]rune{
	{0x0041, 0x005A}, {0x0061, 0x007A}, {0x00B5, 0x00B5}, {0x00C0, 0x00D6},
	{0x00D8, 0x00F6}, {0x00F8, 0x01BA}, {0x01BC, 0x01BF}, {0x01C4, 0x0293},
	{0x0295, 0x02AF}, {0x0370, 0x0373}, {0x0376, 0x0377}, {0x037B, 0x037D},
	{0x037F, 0x037F}, {0x0386, 0x0386}, {0x0388, 0x038A}, {0x038C, 0x038C},
	{0x038E, 0x03A1}, {0x03A3, 0x03F5}, {0x03F7, 0x0481}, {0x048A, 0x052F},
	{0x0531, 0x0556}, {0x10A0, 0x10C5}, {0x13A0, 0x13F5}, {0x13F8, 0x13FD},
	{0x1C90, 0x1CBA}, {0x1CBD, 0x1CBF}, {0x1D00, 0x1D2B}, {0x1D6B, 0x1D77},
	{0x1D79, 0x1D9A}, {0x1E00, 0x1F15}, {0x1F18, 0x1F1D}, {0x1F20, 0x1F45},
	{0x1F48, 0x1F4D}, {0x1F50, 0x1F57}, {0x1F59, 0x1F59}, {0x1F5B, 0x1F5B},
	{0x1F5D, 0x1F5D}, {0x1F5F, 0x1F7D}, {0x1F80, 0x1FB4}, {0x1FB6, 0x1FBC},
	{0x1FBE, 0x1FBE}, {0x1FC2, 0x1FC4}, {0x1FC6, 0x1FCC}, {0x1FD0, 0x1FD3},
	{0x1FD6, 0x1FDB}, {0x1FE0, 0x1FEC}, {0x1FF2, 0x1FF4}, {0x1FF6, 0x1FFC},
	{0x2102, 0x2102}, {0x2107, 0x2107}, {0x210A, 0x2113}, {0x2115, 0x2115},
	{0x2119, 0x211D}, {0x2124, 0x2124}, {0x2126, 0x2126}, {0x2128, 0x2128},
	{0x212A, 0x212D}, {0x212F, 0x2134}, {0x2139, 0x2139}, {0x213C, 0x213F},
	{0x2145, 0x2149}, {0x214E, 0x214E}, {0x2183, 0x2184}, {0x2C00, 0x2C7B},
	{0x2C7E, 0x2CE4}, {0x2CEB, 0x2CEE}, {0x2CF2, 0x2CF3}, {0xA640, 0xA66D},
	{0xA680, 0xA69B}, {0xA722, 0xA76F}, {0xA771, 0xA787}, {0xA78B, 0xA78E},
	{0xAB70, 0xABBF}, {0xFB00, 0xFB06}, {0xFB13, 0xFB17}, {0xFF21, 0xFF3A},
	{0xFF41, 0xFF5A}, {0x10400, 0x1044F}, {0x104B0, 0x104D3}, {0x104D8, 0x104FB},
	{0x10C80, 0x10CB2}, {0x10CC0, 0x10CF2}, {0x118A0, 0x118DF}, {0x1E900, 0x1E943},
}

func isDeepseekLetter(r rune) bool {
	if r < 0x80 {
		return (r >= 'A' && r <= 'Z') || (r >= 'a' && r <= 'z')
	}
	i := sort.Search(len(deepseekLetters), func(i int) bool { return deepseekLetters[i][1] >= r })
	return i < len(deepseekLetters) && deepseekLetters[i][0] <= r
}

// isDeepseekPunct is the class [!-/:-~！-／：-～‘-‟　-。]. The ASCII part
// includes the letters and [\]^_`{|}~: the regex runs on the pieces the
// letter regex made, so a letter piece with non-ASCII letters ("café")
// splits again at them ("caf", "é").
func isDeepseekPunct(r rune) bool {
	switch {
	case r < 0x80:
		return (r >= '!' && r <= '/') || (r >= ':' && r <= '~')
	case r >= 0xFF01 && r <= 0xFF0F, r >= 0xFF1A && r <= 0xFF5E, r >= 0x2018 && r <= 0x201F:
		return true
	case r >= 0x3001 && r <= 0x3002: // U+3000 is whitespace, \v in llama.cpp's text
		return true
	}
	return false
}

// splitTrailingSpaces is \s+$ with regex_iterator semantics: in each piece,
// the whitespace run that reaches the piece's end becomes a piece of its own.
func splitTrailingSpaces(cpts []rune, in, out []int) []int {
	start := 0
	for _, n := range in {
		end := start + n
		p := end
		for p > start && isSpace(cpts[p-1]) {
			p--
		}
		if p > start && p < end {
			out = append(out, p-start, end-p)
		} else {
			out = append(out, n)
		}
		start = end
	}
	return out
}
