package grammar

// partial is llama_partial_utf8: the value decoded so far of a UTF-8
// sequence cut at a token boundary and how many continuation bytes it still
// needs (-1: the bytes were not valid UTF-8).
type partial struct {
	value   uint32
	nRemain int8
}

// decodeUTF8 is llama.cpp's decode_utf8(std::string, partial): the code
// points of s continuing ps, and the sequence left incomplete at its end.
// Like llama.cpp it reads s as a C string (up to its first NUL) and does
// not check continuation bytes after a valid first byte; an invalid first
// byte discards everything (no code points, nRemain -1).
func decodeUTF8(dst []uint32, s string, ps partial) ([]uint32, partial) {
	dst = dst[:0]
	at := func(i int) byte {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	pos := 0
	value, n := ps.value, ps.nRemain
	for at(pos) != 0 && n > 0 {
		b := at(pos)
		if b>>6 != 2 {
			return dst[:0], partial{0, -1}
		}
		value = value<<6 + uint32(b&0x3f)
		pos++
		n--
	}
	if ps.nRemain > 0 && n == 0 {
		dst = append(dst, value)
	}
	lookup := [16]int8{1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 2, 3, 4}
	for at(pos) != 0 {
		first := at(pos)
		n = lookup[first>>4] - 1
		if n < 0 {
			return dst[:0], partial{0, n}
		}
		value = uint32(first) & (1<<(7-n) - 1)
		pos++
		for at(pos) != 0 && n > 0 {
			value = value<<6 + uint32(at(pos)&0x3f)
			pos++
			n--
		}
		if n == 0 {
			dst = append(dst, value)
		}
	}
	return dst, partial{value, n}
}

// cutAtZero is a code point list read as llama.cpp's zero-terminated array.
func cutAtZero(cps []uint32) []uint32 {
	for i, c := range cps {
		if c == 0 {
			return cps[:i]
		}
	}
	return cps
}
