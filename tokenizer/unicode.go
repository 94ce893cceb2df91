package tokenizer

import "unicode"

// cpt flags mirror llama.cpp's unicode_cpt_flags: one general category per
// code point (\p{N}, \p{L}, \p{Z}, \p{M}, \p{P}, \p{S}, \p{C}, unassigned
// counting as C) plus the White_Space property that its \s uses.
const (
	flNumber uint8 = 1 << iota
	flLetter
	flSeparator
	flMark
	flPunct
	flSymbol
	flControl
	flSpace
)

// flagsBMP caches the flags of the Basic Multilingual Plane; the splitters
// look up every code point, and the unicode range tables are too slow for
// the 5 MB/s target.
var flagsBMP = func() []uint8 {
	t := make([]uint8, 0x10000)
	for r := range t {
		t[r] = computeFlags(rune(r))
	}
	return t
}()

func computeFlags(r rune) uint8 {
	var f uint8
	switch {
	// llama.cpp's tables are Unicode 15.1 (checked against the oracle: CJK
	// Extension I counts as letters there, Unicode 16 scripts do not); Go's
	// are 15.0, so add what 15.1 assigned.
	case r >= 0x2EBF0 && r <= 0x2EE5D:
		f = flLetter
	case (r >= 0x2FFC && r <= 0x2FFF) || r == 0x31EF:
		f = flSymbol
	case unicode.IsLetter(r):
		f = flLetter
	case unicode.IsNumber(r):
		f = flNumber
	case unicode.IsMark(r):
		f = flMark
	case unicode.IsPunct(r):
		f = flPunct
	case unicode.IsSymbol(r):
		f = flSymbol
	case unicode.In(r, unicode.Zs, unicode.Zl, unicode.Zp):
		f = flSeparator
	default:
		f = flControl
	}
	if unicode.Is(unicode.White_Space, r) {
		f |= flSpace
	}
	return f
}

// cptFlags returns the flags of code point r (invalid ones count as control).
func cptFlags(r rune) uint8 {
	if r >= 0 && r < 0x10000 {
		return flagsBMP[r]
	}
	if r < 0 || r > unicode.MaxRune {
		return flControl
	}
	return computeFlags(r)
}

// decodeCpts splits UTF-8 like llama.cpp's unicode_cpts_from_utf8: a
// malformed sequence yields U+FFFD and skips exactly one byte. It also
// returns the byte offset of every code point (and len(s) at the end), so
// that the words can be cut from the original bytes.
func decodeCpts(s string, cpts []rune, offs []int) ([]rune, []int) {
	// At most one code point per byte: size once instead of growing.
	if cap(cpts) < len(s) {
		cpts = make([]rune, 0, len(s))
	}
	if cap(offs) < len(s)+1 {
		offs = make([]int, 0, len(s)+1)
	}
	cpts = cpts[:0]
	offs = offs[:0]
	for i := 0; i < len(s); {
		offs = append(offs, i)
		r, n := cptFromUTF8(s, i)
		cpts = append(cpts, r)
		i += n
	}
	offs = append(offs, len(s))
	return cpts, offs
}

// cptFromUTF8 decodes one code point the way llama.cpp's
// unicode_cpt_from_utf8 does: it checks only the continuation-byte pattern
// (so overlong forms and surrogates decode to their value), and a bad
// sequence gives (U+FFFD, 1).
func cptFromUTF8(s string, i int) (rune, int) {
	c := s[i]
	switch {
	case c&0x80 == 0:
		return rune(c), 1
	case c&0x40 == 0:
		return 0xFFFD, 1
	case c&0x20 == 0:
		if i+1 >= len(s) || s[i+1]&0xc0 != 0x80 {
			return 0xFFFD, 1
		}
		return rune(c&0x1f)<<6 | rune(s[i+1]&0x3f), 2
	case c&0x10 == 0:
		if i+2 >= len(s) || s[i+1]&0xc0 != 0x80 || s[i+2]&0xc0 != 0x80 {
			return 0xFFFD, 1
		}
		return rune(c&0x0f)<<12 | rune(s[i+1]&0x3f)<<6 | rune(s[i+2]&0x3f), 3
	case c&0x08 == 0:
		if i+3 >= len(s) || s[i+1]&0xc0 != 0x80 || s[i+2]&0xc0 != 0x80 || s[i+3]&0xc0 != 0x80 {
			return 0xFFFD, 1
		}
		return rune(c&0x07)<<18 | rune(s[i+1]&0x3f)<<12 | rune(s[i+2]&0x3f)<<6 | rune(s[i+3]&0x3f), 4
	}
	return 0xFFFD, 1
}

// utf8Len is llama.cpp's unicode_len_utf8: the sequence length announced by
// a lead byte (1 for continuation bytes).
func utf8Len(c byte) int {
	return [16]int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4}[c>>4]
}

// appendCpt encodes r as llama.cpp's unicode_cpt_to_utf8 does (surrogates
// are encoded as-is, unlike Go's utf8.AppendRune).
func appendCpt(b []byte, r rune) []byte {
	switch {
	case r < 0x80:
		return append(b, byte(r))
	case r < 0x800:
		return append(b, 0xc0|byte(r>>6), 0x80|byte(r&0x3f))
	case r < 0x10000:
		return append(b, 0xe0|byte(r>>12), 0x80|byte(r>>6&0x3f), 0x80|byte(r&0x3f))
	default:
		return append(b, 0xf0|byte(r>>18&0x07), 0x80|byte(r>>12&0x3f), 0x80|byte(r>>6&0x3f), 0x80|byte(r&0x3f))
	}
}

// byteToRune is GPT-2's bytes_to_unicode: printable Latin-1 bytes map to
// themselves, the others to U+0100 onwards in byte order. runeToByte is
// its inverse, indexed by rune (U+0000-U+0143), -1 where no byte maps.
var byteToRune, runeToByte = func() ([256]rune, [0x144]int16) {
	var b2r [256]rune
	var r2b [0x144]int16
	for i := range r2b {
		r2b[i] = -1
	}
	n := rune(0)
	for b := 0; b < 256; b++ {
		if (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff) {
			b2r[b] = rune(b)
		} else {
			b2r[b] = 256 + n
			n++
		}
		r2b[b2r[b]] = int16(b)
	}
	return b2r, r2b
}()

// byteToStr holds byteToRune as UTF-8 strings.
var byteToStr = func() [256]string {
	var t [256]string
	for b := range t {
		t[b] = string(byteToRune[b])
	}
	return t
}()
