package grammar

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// Matcher is the state of a grammar during generation: llama.cpp's set of
// pushdown stacks (each a list of positions in the grammar's elements, the
// top last) and the UTF-8 sequence the last token left incomplete. Stacks
// are interned, and what follows a stack once its top terminal is matched
// is computed once and kept, so repeated states cost a lookup. A Matcher is
// not safe for concurrent use.
type Matcher struct {
	c       *Compiled
	v       *Vocab
	tab     stackTable
	stacks  []int32 // ids in tab
	partial partial
	cps     []uint32 // decode scratch

	sets   []setInfo
	setIDs map[string]int32
	masks  map[int32][]uint64 // Allowed's result per set of stacks

	noMaskCache bool // benchmarks: recompute every mask
}

// maxMasks bounds the masks kept per Matcher (16 KiB each for 128k tokens).
const maxMasks = 64

// stackTable interns stacks and memoizes their successors.
type stackTable struct {
	ids    map[string]int32
	stacks [][]int32
	after  [][]int32 // successors once the top terminal is matched
	done   []bool
	key    []byte
}

// maxStacks bounds the table; past it the table is rebuilt from the
// current state (a grammar recursing without bound keeps making stacks).
const maxStacks = 1 << 18

func (t *stackTable) intern(s []int32) int32 {
	t.key = t.key[:0]
	for _, p := range s {
		t.key = binary.LittleEndian.AppendUint32(t.key, uint32(p))
	}
	if id, ok := t.ids[string(t.key)]; ok {
		return id
	}
	id := int32(len(t.stacks))
	t.ids[string(t.key)] = id
	t.stacks = append(t.stacks, append([]int32(nil), s...))
	t.after = append(t.after, nil)
	t.done = append(t.done, false)
	return id
}

// NewMatcher starts matching c from its root rule; v (may be nil for
// AcceptString/AcceptPiece only) is the vocabulary Allowed and Accept use.
func NewMatcher(c *Compiled, v *Vocab) *Matcher {
	m := &Matcher{c: c, v: v}
	m.Reset()
	return m
}

// Reset returns to the grammar's initial state.
func (m *Matcher) Reset() {
	m.tab = stackTable{ids: map[string]int32{}}
	m.resetSets()
	m.stacks = m.stacks[:0]
	m.partial = partial{}
	pos := m.c.start[m.c.root]
	for {
		var s []int32
		if !isEndOfSeq(m.c.elems[pos].Type) {
			s = append(s, pos)
		}
		m.stacks = m.advance(s, m.stacks)
		for !isEndOfSeq(m.c.elems[pos].Type) {
			pos++
		}
		if m.c.elems[pos].Type != Alt {
			break
		}
		pos++
	}
}

func (m *Matcher) resetSets() {
	m.sets = m.sets[:0]
	m.setIDs = map[string]int32{}
	m.masks = map[int32][]uint64{}
}

func addUnique(out []int32, id int32) []int32 {
	for _, x := range out {
		if x == id {
			return out
		}
	}
	return append(out, id)
}

// advance is llama_grammar_advance_stack: expands rule references at the
// top of stack until every resulting stack has a terminal on top (or is
// empty), adding their ids to out.
func (m *Matcher) advance(stack []int32, out []int32) []int32 {
	el := m.c.elems
	todo := [][]int32{stack}
	seen := map[string]struct{}{}
	var key []byte
	for len(todo) > 0 {
		cur := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		key = key[:0]
		for _, p := range cur {
			key = binary.LittleEndian.AppendUint32(key, uint32(p))
		}
		if _, ok := seen[string(key)]; ok {
			continue
		}
		seen[string(key)] = struct{}{}
		if len(cur) == 0 {
			out = addUnique(out, m.tab.intern(cur))
			continue
		}
		pos := cur[len(cur)-1]
		switch el[pos].Type {
		case RuleRef:
			sub := m.c.start[el[pos].Value]
			for {
				next := make([]int32, len(cur)-1, len(cur)+1)
				copy(next, cur)
				if !isEndOfSeq(el[pos+1].Type) {
					next = append(next, pos+1)
				}
				if !isEndOfSeq(el[sub].Type) {
					next = append(next, sub)
				}
				todo = append(todo, next)
				for !isEndOfSeq(el[sub].Type) {
					sub++
				}
				if el[sub].Type != Alt {
					break
				}
				sub++
			}
		case Char, CharNot, CharAny, Token, TokenNot:
			out = addUnique(out, m.tab.intern(cur))
		}
	}
	return out
}

// after is the set of stacks once the terminal on top of stack id matched.
func (m *Matcher) after(id int32) []int32 {
	if m.tab.done[id] {
		return m.tab.after[id]
	}
	s := m.tab.stacks[id]
	pos := s[len(s)-1]
	var next int32
	if t := m.c.elems[pos].Type; t == Token || t == TokenNot {
		next = pos + 1
	} else {
		_, next = m.matchChar(pos, 0)
	}
	ns := make([]int32, len(s)-1, len(s))
	copy(ns, s)
	if !isEndOfSeq(m.c.elems[next].Type) {
		ns = append(ns, next)
	}
	res := m.advance(ns, nil)
	m.tab.after[id] = res
	m.tab.done[id] = true
	return res
}

// top is the element on top of stack id, and whether there is one.
func (m *Matcher) top(id int32) (int32, bool) {
	s := m.tab.stacks[id]
	if len(s) == 0 {
		return 0, false
	}
	return s[len(s)-1], true
}

func isTokenType(t Type) bool { return t == Token || t == TokenNot }

// matchChar is llama_grammar_match_char: whether chr satisfies the class at
// pos, and the position after the class.
func (m *Matcher) matchChar(pos int32, chr uint32) (bool, int32) {
	el := m.c.elems
	found := false
	positive := el[pos].Type == Char || el[pos].Type == CharAny
	for {
		switch {
		case el[pos+1].Type == CharRngUpper:
			found = found || (el[pos].Value <= chr && chr <= el[pos+1].Value)
			pos += 2
		case el[pos].Type == CharAny:
			found = true
			pos++
		default:
			found = found || el[pos].Value == chr
			pos++
		}
		if el[pos].Type != CharAlt {
			break
		}
	}
	return found == positive, pos
}

// matchPartialChar is llama_grammar_match_partial_char: whether some
// completion of the incomplete sequence p could satisfy the class at pos.
func (m *Matcher) matchPartialChar(pos int32, p partial) bool {
	el := m.c.elems
	positive := el[pos].Type == Char || el[pos].Type == CharAny
	if p.nRemain < 0 || (p.nRemain == 1 && p.value < 2) {
		return false
	}
	low := p.value << (uint(p.nRemain) * 6)
	high := low | (1<<(uint(p.nRemain)*6) - 1)
	if low == 0 {
		if p.nRemain == 2 {
			low = 1 << 11
		} else if p.nRemain == 3 {
			low = 1 << 16
		}
	}
	for {
		switch {
		case el[pos+1].Type == CharRngUpper:
			if el[pos].Value <= high && low <= el[pos+1].Value {
				return positive
			}
			pos += 2
		case el[pos].Type == CharAny:
			return true
		default:
			if low <= el[pos].Value && el[pos].Value <= high {
				return positive
			}
			pos++
		}
		if el[pos].Type != CharAlt {
			break
		}
	}
	return !positive
}

func (m *Matcher) matchToken(pos int32, tok int32) bool {
	e := m.c.elems[pos]
	if e.Type == Token {
		return e.Value == uint32(tok)
	}
	return e.Value != uint32(tok)
}

// Complete reports whether the grammar may end here (a stack is empty):
// end-of-generation tokens are allowed.
func (m *Matcher) Complete() bool {
	for _, id := range m.stacks {
		if len(m.tab.stacks[id]) == 0 {
			return true
		}
	}
	return false
}

// compact rebuilds the stack table from the current state when it grew
// past maxStacks.
func (m *Matcher) compact() {
	if len(m.tab.stacks) < maxStacks && len(m.sets) < maxStacks {
		return
	}
	old := m.tab
	m.tab = stackTable{ids: map[string]int32{}}
	m.resetSets()
	for i, id := range m.stacks {
		m.stacks[i] = m.tab.intern(old.stacks[id])
	}
}

// AcceptPiece is llama_grammar_accept_token: advances by token tok whose
// text is piece (token elements <[id]> match tok, characters match the
// piece). A piece no stack accepts is a *RejectedError and leaves the state
// unchanged.
func (m *Matcher) AcceptPiece(tok int32, piece string) error {
	m.compact()
	var pend partial
	m.cps, pend = decodeUTF8(m.cps, piece, m.partial)
	var out []int32
	for _, id := range m.stacks {
		pos, ok := m.top(id)
		if !ok {
			continue
		}
		if isTokenType(m.c.elems[pos].Type) {
			if m.matchToken(pos, tok) {
				for _, n := range m.after(id) {
					out = addUnique(out, n)
				}
			}
			continue
		}
		cur := []int32{id}
		for _, c := range m.cps {
			var next []int32
			for _, cid := range cur {
				next = m.acceptChr(cid, c, next)
			}
			cur = next
			if len(cur) == 0 {
				break
			}
		}
		for _, n := range cur {
			out = addUnique(out, n)
		}
	}
	if len(out) == 0 {
		return &RejectedError{Token: tok, Piece: piece}
	}
	m.stacks, m.partial = out, pend
	return nil
}

// AcceptString is llama_grammar_accept_str: advances by text, outside any
// token (token elements match nothing).
func (m *Matcher) AcceptString(s string) error {
	m.compact()
	var pend partial
	m.cps, pend = decodeUTF8(m.cps, s, m.partial)
	cur := append([]int32(nil), m.stacks...)
	for _, c := range m.cps {
		var next []int32
		for _, id := range cur {
			next = m.acceptChr(id, c, next)
		}
		cur = next
	}
	if len(cur) == 0 {
		return &RejectedError{Token: -1, Piece: s}
	}
	m.stacks, m.partial = cur, pend
	return nil
}

// acceptChr is llama_grammar_accept_chr.
func (m *Matcher) acceptChr(id int32, chr uint32, out []int32) []int32 {
	pos, ok := m.top(id)
	if !ok || isTokenType(m.c.elems[pos].Type) {
		return out
	}
	if match, _ := m.matchChar(pos, chr); match {
		for _, n := range m.after(id) {
			out = addUnique(out, n)
		}
	}
	return out
}

// Accept advances by token tok of the vocabulary. An end-of-generation token
// is accepted (and changes nothing) only when the grammar is complete.
func (m *Matcher) Accept(tok int32) error {
	if m.v == nil || tok < 0 || int(tok) >= len(m.v.pieces) {
		return &RejectedError{Token: tok}
	}
	if m.v.eog[tok] {
		if m.Complete() {
			return nil
		}
		return &RejectedError{Token: tok, Piece: m.v.pieces[tok]}
	}
	return m.AcceptPiece(tok, m.v.pieces[tok])
}

// Allowed writes into mask (a bitset of at least Vocab.Size() bits, bit id%64
// of word id/64) the tokens the grammar allows next, as
// llama_grammar_apply_impl leaves them with a finite logit, and returns how
// many there are.
func (m *Matcher) Allowed(mask []uint64) int {
	v := m.v
	clear(mask)
	if v == nil {
		return 0
	}
	m.compact()
	if m.partial.nRemain <= 0 {
		sid := m.internSet(append([]int32(nil), m.stacks...))
		if cached, ok := m.masks[sid]; ok && !m.noMaskCache {
			copy(mask, cached)
			return m.count(mask)
		}
		m.walk(0, sid, mask)
		m.markEOG(mask)
		if len(m.masks) >= maxMasks {
			clear(m.masks)
		}
		m.masks[sid] = append([]uint64(nil), mask[:(v.Size()+63)/64]...)
		return m.count(mask)
	} else {
		for _, tok := range v.cont {
			cps, p := decodeUTF8(m.cps, v.pieces[tok], m.partial)
			m.cps = cps
			if p.nRemain < 0 {
				continue
			}
			cps = cutAtZero(cps)
			for _, id := range m.stacks {
				if !m.rejects(id, cps, p, tok) {
					mask[tok>>6] |= 1 << (tok & 63)
					break
				}
			}
		}
	}
	m.markEOG(mask)
	return m.count(mask)
}

// markEOG allows the end-of-generation tokens when the grammar is complete.
func (m *Matcher) markEOG(mask []uint64) {
	if m.Complete() {
		for id, e := range m.v.eog {
			if e {
				mask[id>>6] |= 1 << (id & 63)
			}
		}
	}
}

func (m *Matcher) count(mask []uint64) int {
	n := 0
	for _, w := range mask {
		n += bits.OnesCount64(w)
	}
	return n
}

// rejects is llama_grammar_reject_candidates_for_stack for one token whose
// remaining code points are cps and which ends in the incomplete sequence p.
func (m *Matcher) rejects(id int32, cps []uint32, p partial, tok int32) bool {
	pos, ok := m.top(id)
	if !ok {
		return len(cps) > 0 || p.nRemain != 0
	}
	if isTokenType(m.c.elems[pos].Type) {
		if len(cps) == 0 {
			return p.nRemain != 0
		}
		return !m.matchToken(pos, tok)
	}
	if len(cps) == 0 {
		return p.nRemain != 0 && !m.matchPartialChar(pos, p)
	}
	if match, _ := m.matchChar(pos, cps[0]); !match {
		return true
	}
	for _, n := range m.after(id) {
		if !m.rejects(n, cps[1:], p, tok) {
			return false
		}
	}
	return true
}

// setInfo is an interned set of stacks met during the trie walk, with the
// set each code point leads to (computed once: a walk meets the same sets
// over and over, e.g. inside a string).
type setInfo struct {
	stacks    []int32
	ascii     [128]int32 // child set per ASCII code point: 0 unknown, -1 none, else id+1
	other     map[uint32]int32
	tokenTops bool // some stack has a token element on top
	charTops  bool // some stack has a character class on top
}

func (m *Matcher) internSet(ids []int32) int32 {
	slices.Sort(ids)
	m.tab.key = m.tab.key[:0]
	for _, p := range ids {
		m.tab.key = binary.LittleEndian.AppendUint32(m.tab.key, uint32(p))
	}
	if id, ok := m.setIDs[string(m.tab.key)]; ok {
		return id
	}
	id := int32(len(m.sets))
	m.setIDs[string(m.tab.key)] = id
	si := setInfo{stacks: append([]int32(nil), ids...)}
	for _, s := range ids {
		if pos, ok := m.top(s); ok {
			if isTokenType(m.c.elems[pos].Type) {
				si.tokenTops = true
			} else {
				si.charTops = true
			}
		}
	}
	m.sets = append(m.sets, si)
	return id
}

// child is the set that set sid leads to by code point cp, -1 if none.
func (m *Matcher) child(sid int32, cp uint32) int32 {
	si := &m.sets[sid]
	if cp < 128 {
		if c := si.ascii[cp]; c != 0 {
			return c - 1
		}
	} else if c, ok := si.other[cp]; ok {
		return c
	}
	var union []int32
	for _, id := range si.stacks {
		pos, has := m.top(id)
		if !has || isTokenType(m.c.elems[pos].Type) {
			continue
		}
		if match, _ := m.matchChar(pos, cp); match {
			for _, x := range m.after(id) {
				union = addUnique(union, x)
			}
		}
	}
	c := int32(-1)
	if len(union) > 0 {
		c = m.internSet(union)
	}
	si = &m.sets[sid] // internSet may have moved m.sets
	if cp < 128 {
		si.ascii[cp] = c + 1
	} else {
		if si.other == nil {
			si.other = map[uint32]int32{}
		}
		si.other[cp] = c
	}
	return c
}

// walk marks the tokens of the trie below node that some stack of set sid
// accepts: llama.cpp's rejection over all tokens at once, each shared
// prefix matched once.
func (m *Matcher) walk(node int32, sid int32, mask []uint64) {
	v := m.v
	n := &v.nodes[node]
	si := &m.sets[sid]
	for _, t := range v.terms[n.termStart:n.termEnd] {
		ok := t.p.nRemain == 0
		for i := 0; !ok && si.charTops && i < len(si.stacks); i++ {
			if pos, has := m.top(si.stacks[i]); has && !isTokenType(m.c.elems[pos].Type) {
				ok = m.matchPartialChar(pos, t.p)
			}
		}
		if ok {
			mask[t.id>>6] |= 1 << (t.id & 63)
		}
	}
	if si.tokenTops {
		for _, id := range si.stacks {
			if pos, has := m.top(id); has && isTokenType(m.c.elems[pos].Type) {
				for _, t := range v.terms[n.termEnd:n.subEnd] {
					if m.matchToken(pos, t.id) {
						mask[t.id>>6] |= 1 << (t.id & 63)
					}
				}
			}
		}
	}
	if !si.charTops {
		return
	}
	for ch := n.firstChild; ch >= 0; ch = v.nodes[ch].next {
		if c := m.child(sid, v.nodes[ch].cp); c >= 0 {
			m.walk(ch, c, mask)
		}
	}
}
