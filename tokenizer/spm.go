package tokenizer

import (
	"strings"
	"unicode/utf8"
)

// spmSymbol is a span of the text being merged (llm_symbol).
type spmSymbol struct {
	prev, next int32
	off, n     int32
}

// spmBigram is a merge candidate: the tokens at left and right concatenated
// form a vocabulary token with the given score.
type spmBigram struct {
	left, right int32
	score       float32
	size        int32
}

// spmSession is llama.cpp's llm_tokenizer_spm_session: seed all adjacent
// character pairs that form a token, then repeatedly merge the best-scoring
// pair (ties: leftmost), and emit each final symbol as a token or as byte
// tokens. Buffers are reused across fragments.
type spmSession struct {
	t    *Tokenizer
	syms []spmSymbol
	heap []spmBigram
}

// spmLess orders the max-heap: higher score first, then smaller left index.
func spmBefore(a, b *spmBigram) bool {
	return a.score > b.score || (a.score == b.score && a.left < b.left)
}

func (s *spmSession) push(b spmBigram) {
	s.heap = append(s.heap, b)
	h := s.heap
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !spmBefore(&h[i], &h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (s *spmSession) pop() spmBigram {
	h := s.heap
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		m := l
		if r := l + 1; r < len(h) && spmBefore(&h[r], &h[l]) {
			m = r
		}
		if !spmBefore(&h[m], &h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	s.heap = h
	return top
}

func (s *spmSession) tryAdd(text string, left, right int32) {
	if left < 0 || right < 0 {
		return
	}
	l, r := &s.syms[left], &s.syms[right]
	piece := text[l.off : l.off+l.n+r.n]
	id, ok := s.t.tokenID.get(piece)
	if !ok {
		return
	}
	s.push(spmBigram{left: left, right: right, score: s.t.scores[id], size: int32(len(piece))})
}

// tokenize cuts text into regions before "▁" wherever no vocabulary token
// can span the cut (see Tokenizer.spmGlue) and merges each region on its
// own: merges in disjoint regions never interact, and the heap order
// restricted to one region is unchanged, so the result equals one global
// run while the heaps stay small.
func (s *spmSession) tokenize(text string, out []int32) ([]int32, error) {
	const sep = "▁"
	if !utf8.ValidString(text) {
		return s.region(text, out)
	}
	start := 0
	for from := 1; from < len(text); {
		i := strings.Index(text[from:], sep)
		if i < 0 {
			break
		}
		p := from + i
		from = p + len(sep)
		_, n := utf8.DecodeLastRuneInString(text[:p])
		prev := text[p-n : p]
		if prev == sep || s.t.spmGlue[prev] {
			continue
		}
		var err error
		if out, err = s.region(text[start:p], out); err != nil {
			return nil, err
		}
		start = p
	}
	return s.region(text[start:], out)
}

func (s *spmSession) region(text string, out []int32) ([]int32, error) {
	s.syms = s.syms[:0]
	s.heap = s.heap[:0]
	for off := 0; off < len(text); {
		n := min(utf8Len(text[off]), len(text)-off)
		idx := int32(len(s.syms))
		next := idx + 1
		if off+n == len(text) {
			next = -1
		}
		s.syms = append(s.syms, spmSymbol{prev: idx - 1, next: next, off: int32(off), n: int32(n)})
		off += n
	}
	for i := 1; i < len(s.syms); i++ {
		s.tryAdd(text, int32(i-1), int32(i))
	}
	for len(s.heap) > 0 {
		b := s.pop()
		l, r := &s.syms[b.left], &s.syms[b.right]
		if l.n == 0 || r.n == 0 || l.n+r.n != b.size {
			continue // stale: one side was merged since
		}
		l.n += r.n
		r.n = 0
		l.next = r.next
		if r.next >= 0 {
			s.syms[r.next].prev = b.left
		}
		s.tryAdd(text, l.prev, b.left)
		s.tryAdd(text, b.left, l.next)
	}
	if len(s.syms) == 0 {
		return out, nil
	}
	// A merged symbol is always a token, and a single character never equals
	// a merged pair, so llama.cpp's rev_merge resegmentation reduces to byte
	// fallback for unknown characters.
	for i := int32(0); i != -1; i = s.syms[i].next {
		sym := s.syms[i]
		piece := text[sym.off : sym.off+sym.n]
		if id, ok := s.t.tokenID.get(piece); ok {
			out = append(out, id)
			continue
		}
		for j := 0; j < len(piece); j++ {
			id := s.t.spmBytes[piece[j]]
			if id == NoToken {
				return nil, &ByteTokenError{Byte: piece[j]}
			}
			out = append(out, id)
		}
	}
	return out, nil
}
