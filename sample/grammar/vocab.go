package grammar

import (
	"slices"
)

// Vocab is what the matcher needs of a vocabulary, prepared once: each
// token's text as llama.cpp's token_to_piece with special tokens rendered,
// which tokens end generation, and a trie over the tokens' code points
// (decoded from a clean UTF-8 state) so that Allowed matches the tokens
// sharing a prefix once. A Vocab is read-only and may be shared.
type Vocab struct {
	pieces []string
	eog    []bool
	nodes  []trieNode
	terms  []term  // tokens in depth-first order of their trie node
	cont   []int32 // tokens whose first byte is a UTF-8 continuation byte
}

type trieNode struct {
	cp                 uint32 // code point on the edge into this node
	firstChild, next   int32  // -1 none
	termStart, termEnd int32  // tokens ending here
	subEnd             int32  // end of the tokens of the whole subtree
}

type term struct {
	id int32
	p  partial // the UTF-8 sequence the token leaves incomplete
}

// NewVocab prepares a vocabulary: pieces[id] is token id's text (special
// tokens as their text, as llama.cpp's grammar sees them) and eog lists the
// end-of-generation tokens.
func NewVocab(pieces []string, eog []int32) *Vocab {
	v := &Vocab{pieces: pieces, eog: make([]bool, len(pieces))}
	for _, id := range eog {
		if id >= 0 && int(id) < len(pieces) {
			v.eog[id] = true
		}
	}
	type entry struct {
		cps []uint32
		t   term
	}
	var entries []entry
	for id, s := range pieces {
		if v.eog[id] || s == "" || s[0] == 0 {
			continue
		}
		if s[0]>>6 == 2 {
			v.cont = append(v.cont, int32(id))
		}
		cps, p := decodeUTF8(nil, s, partial{})
		if p.nRemain < 0 {
			continue // rejected in every state that is not mid-sequence
		}
		entries = append(entries, entry{cutAtZero(cps), term{int32(id), p}})
	}
	slices.SortStableFunc(entries, func(a, b entry) int { return slices.Compare(a.cps, b.cps) })

	v.nodes = append(v.nodes, trieNode{firstChild: -1, next: -1})
	v.terms = make([]term, 0, len(entries))
	path := []int32{0}
	lastChild := []int32{-1}
	var prev []uint32
	for _, e := range entries {
		l := 0
		for l < len(prev) && l < len(e.cps) && prev[l] == e.cps[l] {
			l++
		}
		for len(path) > l+1 {
			v.nodes[path[len(path)-1]].subEnd = int32(len(v.terms))
			path = path[:len(path)-1]
			lastChild = lastChild[:len(lastChild)-1]
		}
		for _, c := range e.cps[l:] {
			id := int32(len(v.nodes))
			v.nodes = append(v.nodes, trieNode{cp: c, firstChild: -1, next: -1, termStart: int32(len(v.terms)), termEnd: int32(len(v.terms))})
			parent := path[len(path)-1]
			if lc := lastChild[len(lastChild)-1]; lc < 0 {
				v.nodes[parent].firstChild = id
			} else {
				v.nodes[lc].next = id
			}
			lastChild[len(lastChild)-1] = id
			path = append(path, id)
			lastChild = append(lastChild, -1)
		}
		v.terms = append(v.terms, e.t)
		v.nodes[path[len(path)-1]].termEnd = int32(len(v.terms))
		prev = e.cps
	}
	for len(path) > 0 {
		v.nodes[path[len(path)-1]].subEnd = int32(len(v.terms))
		path = path[:len(path)-1]
	}
	return v
}

// Size is the number of tokens.
func (v *Vocab) Size() int { return len(v.pieces) }
