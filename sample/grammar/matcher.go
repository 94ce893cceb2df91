package grammar

import (
	"encoding/binary"
	"math/bits"
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
}

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
	if len(m.tab.stacks) < maxStacks {
		return
	}
	old := m.tab
	m.tab = stackTable{ids: map[string]int32{}}
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
		m.walk(0, m.stacks, mask)
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
	if m.Complete() {
		for id, e := range v.eog {
			if e {
				mask[id>>6] |= 1 << (id & 63)
			}
		}
	}
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

// walk marks the tokens of the trie below node that some stack of set
// accepts: rejects over all tokens at once, each shared prefix matched once.
func (m *Matcher) walk(node int32, set []int32, mask []uint64) {
	v := m.v
	n := &v.nodes[node]
	for _, t := range v.terms[n.termStart:n.termEnd] {
		ok := t.p.nRemain == 0
		for i := 0; !ok && i < len(set); i++ {
			if pos, has := m.top(set[i]); has && !isTokenType(m.c.elems[pos].Type) {
				ok = m.matchPartialChar(pos, t.p)
			}
		}
		if ok {
			mask[t.id>>6] |= 1 << (t.id & 63)
		}
	}
	for _, id := range set {
		if pos, has := m.top(id); has && isTokenType(m.c.elems[pos].Type) {
			for _, t := range v.terms[n.termEnd:n.subEnd] {
				if m.matchToken(pos, t.id) {
					mask[t.id>>6] |= 1 << (t.id & 63)
				}
			}
		}
	}
	for ch := n.firstChild; ch >= 0; ch = v.nodes[ch].next {
		cp := v.nodes[ch].cp
		var union []int32
		shared := true
		for _, id := range set {
			pos, has := m.top(id)
			if !has || isTokenType(m.c.elems[pos].Type) {
				continue
			}
			if match, _ := m.matchChar(pos, cp); !match {
				continue
			}
			nx := m.after(id)
			switch {
			case union == nil:
				union = nx
			default:
				if shared {
					union = append([]int32(nil), union...)
					shared = false
				}
				for _, x := range nx {
					union = addUnique(union, x)
				}
			}
		}
		if len(union) > 0 {
			m.walk(ch, union, mask)
		}
	}
}
