package tokenizer

import (
	"math/rand/v2"
	"strings"
)

// Pools the random strings are assembled from: they aim at the places where
// tokenizers disagree (scripts, categories, whitespace kinds, digits,
// contractions, emoji sequences, control and unassigned code points, and
// special-token text).
var (
	poolWords  = []string{"the", "The", "THE", "hello", "World", "naïve", "café", "résumé", "llama", "tokenizer", "Straße", "İstanbul", "ǅemal", "ﬁne", "Ωmega", "x", "a", "I", "O'Neil"}
	poolContr  = []string{"'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'T", "'RE", "'Ve", "'LL", "'D", "'x", "'", "''", "’s"}
	poolPunct  = []string{".", ",", "!", "?", ";", ":", "...", "—", "–", "-", "(", ")", "[", "]", "{", "}", "<", ">", "/", "\\", "|", "@", "#", "$", "%", "^", "&", "*", "+", "=", "~", "`", "\"", "«", "»", "¿", "¡", "。", "、", "，", "！", "…", "•", "§", "©", "®", "™", "°", "±", "×", "÷", "€", "£", "¥", "→", "∑", "√", "∞", "≈", "≠", "≤", "★"}
	poolSpace  = []string{" ", "  ", "   ", "    ", "\t", "\t\t", "\n", "\n\n", "\r\n", "\r", "\v", "\f", " \n", "\n ", " \t ", "\u00a0", "\u2000", "\u2003", "\u200a", "\u3000", "\u0085", "\u1680", "\u2028", "\u2029", "\u202f", "\u205f", "\u200b", "\x1c", "\x1f"}
	poolDigit  = []string{"0", "7", "42", "123", "2024", "12345", "3.14159", "1e10", "-17", "1,000,000", "0x1F", "٣٤٥", "５６", "²", "³", "½", "Ⅻ", "①", "၁၂", "७८"}
	poolEmoji  = []string{"😀", "🦙", "🚀", "🔥", "👍🏽", "👨‍👩‍👧", "🏳️‍🌈", "❤️", "🇫🇷", "🇯🇵", "✨", "🤖", "☕", "🧑‍💻", "1️⃣"}
	poolCode   = []string{"func main() {", "}", "if err != nil {\n\treturn err\n}", "x := y + 1", "for i := 0; i < n; i++ {", "fmt.Println(\"hi\")", "def f(x):\n    return x**2", "<div class=\"a\">", "</div>", "SELECT * FROM t;", "a->b", "i++", "x==y", "&&", "||", "#include <stdio.h>", "// comment", "/* c */", "$var", "@decorator", "0b1010", "   \tindent"}
	poolScript = []string{
		"日本語のテキスト", "中文字符", "漢字", "한국어 텍스트", "Привет, мир", "Ελληνικά", "العربية", "עברית", "हिन्दी", "ภาษาไทย", "ქართული", "Հայերեն", "বাংলা", "தமிழ்", "ᚠᛇᚻ", "ꙮ", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "𝐀𝐁𝐂", "ｆｕｌｌｗｉｄｔｈ",
		"e\u0301", "a\u0308\u0304", "n\u0303", "\u0301", "\u200d", "\u200c", "\ufeff", "\u00ad", "\u034f", "\ufe0f",
	}
	poolOdd = []string{"\x00", "\x01", "\x07", "\x1b", "\x7f", "\u0080", "\u009f", "\u0378", "\ue000", "\U000f0000", "\ufffd", "\ufffe", "\uffff", "\U0010fffd", "\U0001f9ff", "\u2065", "\U000e0001"}
)

// randText builds one random string from the pools, mixing in random code
// points and the vocabulary's special-token texts.
func randText(rng *rand.Rand, specials []string) string {
	var b strings.Builder
	n := 1 + rng.IntN(12)
	for i := 0; i < n; i++ {
		switch k := rng.IntN(20); {
		case k < 4:
			b.WriteString(poolWords[rng.IntN(len(poolWords))])
		case k < 5:
			b.WriteString(poolContr[rng.IntN(len(poolContr))])
		case k < 7:
			b.WriteString(poolPunct[rng.IntN(len(poolPunct))])
		case k < 10:
			b.WriteString(poolSpace[rng.IntN(len(poolSpace))])
		case k < 11:
			b.WriteString(poolDigit[rng.IntN(len(poolDigit))])
		case k < 12:
			b.WriteString(poolEmoji[rng.IntN(len(poolEmoji))])
		case k < 13:
			b.WriteString(poolCode[rng.IntN(len(poolCode))])
		case k < 15:
			b.WriteString(poolScript[rng.IntN(len(poolScript))])
		case k < 16:
			b.WriteString(poolOdd[rng.IntN(len(poolOdd))])
		case k < 17 && len(specials) > 0:
			b.WriteString(specials[rng.IntN(len(specials))])
		case k < 18:
			// A random ASCII run.
			for j := rng.IntN(8); j >= 0; j-- {
				b.WriteByte(byte(0x20 + rng.IntN(0x5f)))
			}
		default:
			// Random code points: mostly BMP, some astral; no surrogates
			// (they cannot cross the JavaScript string boundary).
			for j := rng.IntN(4); j >= 0; j-- {
				var r rune
				if rng.IntN(4) == 0 {
					r = rune(0x10000 + rng.IntN(0x20000))
				} else {
					r = rune(0xa0 + rng.IntN(0xd800-0xa0))
				}
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}
