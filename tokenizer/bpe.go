package tokenizer

import (
	"strings"
	"unicode/utf8"
)

// bpeModel holds the merge ranks of a byte-level BPE vocabulary. Strings
// are interned as "pieces": ids below nVocab are the vocabulary tokens,
// higher ids are merge halves that are not tokens. A merge is keyed by its
// two piece ids, so the merge loop does no string building.
type bpeModel struct {
	nVocab int32
	// tokenID is the tokenizer's own index (read only); extra interns the
	// merge halves that are not tokens (few or none in real vocabularies).
	// Two tables rather than one copy of the vocabulary with the halves
	// added: copying 128k entries was a fifth of building a Llama-3
	// tokenizer.
	tokenID *strIndex
	extra   map[string]int32
	ranks   *pairRanks
	bytePc  [256]int32 // piece id of the byte-encoded single byte, -1 if none
}

// piece returns the piece id of s, if it is a token or a merge half.
func (m *bpeModel) piece(s string) (int32, bool) {
	if id, ok := m.tokenID.get(s); ok {
		return id, true
	}
	id, ok := m.extra[s]
	return id, ok
}

func newBPE(merges []string, tokenID *strIndex, nVocab int) (*bpeModel, error) {
	if merges == nil {
		return nil, metaErr("tokenizer.ggml.merges", -1, "missing (required for gpt2 vocabularies)")
	}
	m := &bpeModel{
		nVocab:  int32(nVocab),
		tokenID: tokenID,
		extra:   map[string]int32{},
		ranks:   newPairRanks(len(merges)),
	}
	next := int32(nVocab)
	intern := func(s string) int32 {
		if id, ok := m.piece(s); ok {
			return id
		}
		m.extra[s] = next
		next++
		return next - 1
	}
	for i, w := range merges {
		// llama.cpp splits at the first space after the first byte; a merge
		// without one becomes the pair ("", "").
		var first, second string
		if len(w) > 1 {
			if p := strings.IndexByte(w[1:], ' '); p >= 0 {
				first, second = w[:p+1], w[p+2:]
			}
		}
		key := uint64(uint32(intern(first)))<<32 | uint64(uint32(intern(second)))
		m.ranks.add(key, int32(i)) // keeps the first rank, as emplace does
	}
	for b := 0; b < 256; b++ {
		m.bytePc[b] = -1
		if id, ok := m.piece(byteToStr[b]); ok {
			m.bytePc[b] = id
		}
	}
	return m, nil
}

type bpeSymbol struct {
	prev, next int32
	off, n     int32
	piece      int32 // interned piece of the current text, -1 if none
}

type bpeBigram struct {
	rank        int32
	left, right int32
	size        int32
}

// bpeSession is llama.cpp's llm_tokenizer_bpe_session: pre-tokenize into
// words, byte-encode each word, then merge the lowest-rank adjacent pair
// (ties: leftmost) until none applies.
type bpeSession struct {
	t      *Tokenizer
	m      *bpeModel
	syms   []bpeSymbol
	heap   []bpeBigram
	cpts   []rune
	offs   []int
	words  []int
	words2 []int // the splitters' second buffer
	enc    []byte
}

func newBPESession(t *Tokenizer) *bpeSession {
	return &bpeSession{t: t, m: t.bpe}
}

func bpeBefore(a, b *bpeBigram) bool {
	return a.rank < b.rank || (a.rank == b.rank && a.left < b.left)
}

func (s *bpeSession) push(b bpeBigram) {
	s.heap = append(s.heap, b)
	h := s.heap
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !bpeBefore(&h[i], &h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (s *bpeSession) pop() bpeBigram {
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
		if r := l + 1; r < len(h) && bpeBefore(&h[r], &h[l]) {
			m = r
		}
		if !bpeBefore(&h[m], &h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	s.heap = h
	return top
}

func (s *bpeSession) tryAdd(left, right int32) {
	if left < 0 || right < 0 {
		return
	}
	l, r := &s.syms[left], &s.syms[right]
	if l.piece < 0 || r.piece < 0 {
		return
	}
	rank, ok := s.m.ranks.get(uint64(uint32(l.piece))<<32 | uint64(uint32(r.piece)))
	if !ok {
		return
	}
	s.push(bpeBigram{rank: rank, left: left, right: right, size: l.n + r.n})
}

// tokenize appends the tokens of one raw-text fragment.
func (s *bpeSession) tokenize(text string, out []int32) []int32 {
	s.cpts, s.offs = decodeCpts(text, s.cpts, s.offs)
	if !utf8.ValidString(text) {
		// Re-encode as llama.cpp does (bad bytes become U+FFFD), so word
		// bytes can still be sliced from one string.
		b := make([]byte, 0, len(text)+8)
		for _, r := range s.cpts {
			b = appendCpt(b, r)
		}
		text = string(b)
		s.cpts, s.offs = decodeCpts(text, s.cpts, s.offs)
	}
	s.words = append(s.words[:0], len(s.cpts))
	for _, f := range s.t.split {
		s.words, s.words2 = f(s.cpts, s.words, s.words2[:0]), s.words
	}
	pos := 0
	for _, n := range s.words {
		word := text[s.offs[pos]:s.offs[pos+n]]
		pos += n
		out = s.word(word, out)
	}
	return out
}

// word byte-encodes one pre-tokenized word and merges it.
func (s *bpeSession) word(word string, out []int32) []int32 {
	if len(word) == 0 {
		return out
	}
	s.enc = s.enc[:0]
	for i := 0; i < len(word); i++ {
		s.enc = append(s.enc, byteToStr[word[i]]...)
	}
	enc := s.enc
	if s.t.ignoreMerges {
		if id, ok := s.t.tokenID.getBytes(enc); ok {
			return append(out, id)
		}
	}
	s.syms = s.syms[:0]
	s.heap = s.heap[:0]
	off := int32(0)
	for i := 0; i < len(word); i++ {
		n := int32(len(byteToStr[word[i]]))
		idx := int32(len(s.syms))
		next := idx + 1
		if i == len(word)-1 {
			next = -1
		}
		s.syms = append(s.syms, bpeSymbol{prev: idx - 1, next: next, off: off, n: n, piece: s.m.bytePc[word[i]]})
		off += n
	}
	for i := 1; i < len(s.syms); i++ {
		s.tryAdd(int32(i-1), int32(i))
	}
	for len(s.heap) > 0 {
		b := s.pop()
		l, r := &s.syms[b.left], &s.syms[b.right]
		if l.n == 0 || r.n == 0 || l.n+r.n != b.size {
			continue // outdated
		}
		l.n += r.n
		r.n = 0
		l.next = r.next
		if r.next >= 0 {
			s.syms[r.next].prev = b.left
		}
		l.piece = -1
		k := enc[l.off : l.off+l.n]
		if id, ok := s.m.tokenID.getBytes(k); ok {
			l.piece = id
		} else if id, ok := s.m.extra[string(k)]; ok {
			l.piece = id
		}
		s.tryAdd(l.prev, b.left)
		s.tryAdd(b.left, l.next)
	}
	for i := int32(0); i != -1; i = s.syms[i].next {
		sym := &s.syms[i]
		if sym.n == 0 {
			continue
		}
		if sym.piece >= 0 && sym.piece < s.m.nVocab {
			out = append(out, sym.piece)
			continue
		}
		// Not a token: llama.cpp looks up each byte of the encoded text as a
		// one-byte token and drops those that are missing.
		piece := enc[sym.off : sym.off+sym.n]
		for j := 0; j < len(piece); j++ {
			if id, ok := s.t.tokenID.getBytes(piece[j : j+1]); ok {
				out = append(out, id)
			}
		}
	}
	return out
}
