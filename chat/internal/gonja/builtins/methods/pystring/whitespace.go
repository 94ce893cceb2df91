package pystring

// IsPySpace reports whether r is whitespace for Python's str.isspace, which
// str.strip(), str.split() and Jinja2's trim filter use: TAB, LF, VT, FF, CR,
// the separators U+001C–U+001F, SP, NEL, NBSP, the Zs category, LS and PS —
// but not U+200B or U+FEFF.
//
// webgguf patch: gonja used ASCII whitespace for strip() and Go's
// unicode.IsSpace for split() and trim, which differ from Python (and from
// transformers, the reference for chat templates) on U+001C–U+001F.
func IsPySpace(r rune) bool {
	switch {
	case r >= '\t' && r <= '\r', r >= 0x1c && r <= 0x20, r == 0x85, r == 0xa0, r == 0x1680,
		r >= 0x2000 && r <= 0x200a, r == 0x2028, r == 0x2029, r == 0x202f, r == 0x205f, r == 0x3000:
		return true
	}
	return false
}
