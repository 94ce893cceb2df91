package tokenizer

import "strings"

// fragment is a piece of the input: raw text [off, off+n) of the original
// string, or a special token (token >= 0).
type fragment struct {
	token  int32
	off, n int
}

// isCSpace is C's isspace in the "C" locale, which llama.cpp uses for the
// lstrip/rstrip attributes.
func isCSpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r')
}

// partition is llama.cpp's tokenizer_st_partition: for each special token,
// longest text first, every raw fragment is split at each occurrence
// (leftmost first). Control and unknown tokens take part only when
// parseSpecial is set; user-defined tokens always do.
func (t *Tokenizer) partition(text string, parseSpecial bool, frags []fragment) []fragment {
	frags = append(frags[:0], fragment{token: NoToken, off: 0, n: len(text)})
	if len(text) == 0 {
		return frags[:0]
	}
	var next []fragment
	for _, id := range t.special {
		attr := t.attrs[id]
		if !parseSpecial && attr&(AttrControl|AttrUnknown) != 0 {
			continue
		}
		tok := t.tokens[id]
		if tok == "" {
			continue
		}
		// Cheap reject: the token must occur somewhere in the text at all.
		if !strings.Contains(text, tok) {
			continue
		}
		next = next[:0]
		for _, f := range frags {
			if f.token != NoToken {
				next = append(next, f)
				continue
			}
			off, n := f.off, f.n
			for n > 0 {
				i := strings.Index(text[off:off+n], tok)
				if i < 0 {
					break
				}
				match := off + i
				if match > off {
					ln := match - off
					if attr&AttrLStrip != 0 {
						for ln > 0 && isCSpace(text[off+ln-1]) {
							ln--
						}
					}
					if ln > 0 {
						next = append(next, fragment{token: NoToken, off: off, n: ln})
					}
				}
				next = append(next, fragment{token: id})
				roff := match + len(tok)
				rn := off + n - roff
				if attr&AttrRStrip != 0 {
					for rn > 0 && isCSpace(text[roff]) {
						roff++
						rn--
					}
				}
				off, n = roff, rn
			}
			if n > 0 {
				next = append(next, fragment{token: NoToken, off: off, n: n})
			}
		}
		frags, next = next, frags
	}
	return frags
}
