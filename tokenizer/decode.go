package tokenizer

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// appendPiece appends llama.cpp's token_to_piece(special=true) of id to
// dst; New caches every token's piece, as llama.cpp does.
func (t *Tokenizer) appendPiece(dst []byte, id int32) []byte {
	attr := t.attrs[id]
	text := t.tokens[id]
	if attr&(AttrUnknown|AttrControl|AttrUserDefined) != 0 {
		return append(dst, text...)
	}
	if attr&AttrNormal != 0 {
		if t.kind == kindSPM || t.kind == kindWPM {
			return appendReplaced(dst, text, "▁", " ")
		}
		return appendByteLevel(dst, text)
	}
	if attr&AttrByte != 0 {
		return append(dst, tokenToByte(text))
	}
	return dst // unused and undefined tokens render as nothing
}

// appendReplaced appends s with every old replaced by new.
func appendReplaced(dst []byte, s, old, new string) []byte {
	for {
		i := strings.Index(s, old)
		if i < 0 {
			return append(dst, s...)
		}
		dst = append(append(dst, s[:i]...), new...)
		s = s[i+len(old):]
	}
}

// tokenToByte parses "<0xXX>" like llama.cpp (strtol on text[3:5], 0 on junk).
func tokenToByte(text string) byte {
	if len(text) < 4 {
		return 0
	}
	h := text[3:min(5, len(text))]
	// strtol stops at the first non-hex digit.
	end := 0
	for end < len(h) && strings.IndexByte("0123456789abcdefABCDEF", h[end]) >= 0 {
		end++
	}
	v, _ := strconv.ParseUint(h[:end], 16, 8)
	return byte(v)
}

// appendByteLevel appends text with GPT-2 byte-level characters mapped
// back to bytes (llama.cpp's llama_decode_text), marking characters
// outside the mapping like it does.
func appendByteLevel(b []byte, text string) []byte {
	for i := 0; i < len(text); {
		if c := text[i]; c >= 0x21 && c <= 0x7e { // printable ASCII stands for itself
			b = append(b, c)
			i++
			continue
		}
		r, n := cptFromUTF8(text, i)
		i += n
		if r >= 0 && int(r) < len(runeToByte) && runeToByte[r] >= 0 {
			b = append(b, byte(runeToByte[r]))
			continue
		}
		u := appendCpt(nil, r)
		b = append(b, "[UNK_BYTE_0x"...)
		for _, c := range u {
			b = fmt.Appendf(b, "%02x", c)
		}
		b = append(b, text...)
		b = append(b, ']')
	}
	return b
}

// Piece is llama_token_to_piece(id, lstrip=0, special): the text of one
// token. Control and unknown tokens give "" unless special is set; an
// out-of-range id gives "".
func (t *Tokenizer) Piece(id int32, special bool) string {
	if id < 0 || int(id) >= len(t.pieces) {
		return ""
	}
	if !special && t.attrs[id]&(AttrUnknown|AttrControl) != 0 {
		return ""
	}
	return t.pieces[id]
}

// Decode is Detokenize(ids, false, false): the text of ids without control
// tokens, as llama.cpp's common_detokenize(ctx, ids, false).
func (t *Tokenizer) Decode(ids []int32) string {
	return t.Detokenize(ids, false, false)
}

// Detokenize is llama_detokenize: removeSpecial drops a leading BOS and a
// trailing EOS the vocabulary adds; unparseSpecial renders control tokens.
// SentencePiece output loses the space prefix of its first token, and
// vocabularies with clean_up_tokenization_spaces get llama.cpp's cleanup.
func (t *Tokenizer) Detokenize(ids []int32, removeSpecial, unparseSpecial bool) string {
	removeSpace := t.addSpacePrefix
	if removeSpecial && t.addBOS && len(ids) > 0 && ids[0] == t.bos {
		removeSpace = false
		ids = ids[1:]
	}
	if removeSpecial && t.addEOS && len(ids) > 0 && ids[len(ids)-1] == t.eos {
		ids = ids[:len(ids)-1]
	}
	var b []byte
	for _, id := range ids {
		p := t.Piece(id, unparseSpecial)
		if removeSpace && len(p) > 0 && p[0] == ' ' {
			p = p[1:]
		}
		removeSpace = false
		b = append(b, p...)
	}
	if t.cleanSpaces {
		b = cleanSpaces(b)
	}
	return string(b)
}

// cleanSpaces ports llama.cpp's three in-place clean-up passes literally,
// including how they read bytes already rewritten.
func cleanSpaces(text []byte) []byte {
	// " ?", " !", " .", " ,"
	total1 := len(text)
	total := 0
	if total1 > 0 {
		total = 1
	}
	for i := 1; i < total1; i++ {
		x := text[i]
		if text[i-1] == ' ' && (x == '?' || x == '!' || x == '.' || x == ',') {
			total--
		}
		text[total] = x
		total++
	}
	// " ' "
	total2 := total
	total = min(total2, 1)
	for i := 1; i < total2; i++ {
		x := text[i]
		if x == '\'' && i+1 < total2 && text[i-1] == ' ' && text[i+1] == ' ' {
			total--
			i++
			text[i] = 0
		}
		text[total] = x
		total++
	}
	// " 's", " 'm", " 're", " 've"
	total3 := total
	total = min(total3, 1)
	for i := 1; i < total3; i++ {
		x := text[i]
		if text[i-1] == ' ' && x == '\'' && i+1 < total3 {
			x1 := text[i+1]
			if x1 == 's' || x1 == 'm' {
				total--
			} else if i+2 < total3 {
				x2 := text[i+2]
				if (x1 == 'r' && x2 == 'e') || (x1 == 'v' && x2 == 'e') {
					total--
				}
			}
		}
		text[total] = x
		total++
	}
	return text[:total]
}

// Decoder turns a stream of generated ids into text the way llama.cpp's
// generation loop prints it (token_to_piece per token, no clean-up pass),
// holding back an incomplete UTF-8 sequence until its last byte arrives.
type Decoder struct {
	t       *Tokenizer
	special bool
	pending []byte
}

// NewDecoder starts a stream; special renders control tokens.
func (t *Tokenizer) NewDecoder(special bool) *Decoder {
	return &Decoder{t: t, special: special}
}

// Push adds one id and returns the text that is now complete.
func (d *Decoder) Push(id int32) string {
	d.pending = append(d.pending, d.t.Piece(id, d.special)...)
	n := completePrefix(d.pending)
	out := string(d.pending[:n])
	d.pending = append(d.pending[:0], d.pending[n:]...)
	return out
}

// Flush returns whatever is held back (an incomplete sequence at the end of
// the stream) and resets the decoder.
func (d *Decoder) Flush() string {
	out := string(d.pending)
	d.pending = d.pending[:0]
	return out
}

// completePrefix returns the length of b without a trailing incomplete (but
// so far valid) UTF-8 sequence. Invalid bytes are passed through, since no
// later byte can complete them.
func completePrefix(b []byte) int {
	for k := 1; k <= 3 && k <= len(b); k++ {
		c := b[len(b)-k]
		if c&0xC0 == 0x80 {
			continue // continuation byte: look further back for the lead
		}
		need := 0
		switch {
		case c&0xE0 == 0xC0:
			need = 2
		case c&0xF0 == 0xE0:
			need = 3
		case c&0xF8 == 0xF0:
			need = 4
		}
		if need > k && !utf8.FullRune(b[len(b)-k:]) {
			return len(b) - k
		}
		return len(b)
	}
	return len(b)
}
