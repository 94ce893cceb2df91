package tokenizer

import (
	"sort"
	"unsafe"
)

type kind int

const (
	kindSPM kind = iota
	kindBPE
	kindWPM
)

// Tokenizer encodes and decodes text like llama.cpp for one vocabulary. It
// is immutable after New and safe for concurrent use.
type Tokenizer struct {
	kind    kind
	tokens  []string
	attrs   []Attr
	scores  []float32
	tokenID *strIndex
	pieces  []string // token_to_piece(special=true), as llama.cpp caches it

	bos, eos, eot, eom, unk, sep, pad int32
	eog                               map[int32]bool

	addBOS, addEOS, addSpacePrefix bool
	addSEP                         bool // llama.cpp's add_sep: pair inputs (rerank) get SEP between
	cleanSpaces, ignoreMerges      bool

	// WordPiece: BERT normalizer options and the longest token in bytes.
	wpmLowercase, wpmStripAccents bool
	maxTokenLen                   int

	special []int32 // control/user-defined/unknown tokens, longest text first

	warnings []string // what check found odd but harmless (Warnings)

	spmBytes [256]int32 // SPM byte-fallback token per byte, NoToken if missing
	// spmGlue holds the characters c for which some token contains "c▁";
	// SPM text may be cut before any other "▁" (see spmSession.tokenize).
	spmGlue map[string]bool
	bpe     *bpeModel
	split   []splitFunc
}

// New validates v and builds its tokenizer, applying llama.cpp's per-model
// defaults and load-time token attribute fixes.
func New(v *Vocab) (*Tokenizer, error) {
	n := len(v.Tokens)
	if n == 0 {
		return nil, metaErr("tokenizer.ggml.tokens", -1, "missing or empty")
	}
	if v.Scores != nil && len(v.Scores) < n {
		return nil, metaErr("tokenizer.ggml.scores", -1, "has %d entries for %d tokens", len(v.Scores), n)
	}
	if v.Types != nil && len(v.Types) < n {
		return nil, metaErr("tokenizer.ggml.token_type", -1, "has %d entries for %d tokens", len(v.Types), n)
	}
	warnings, err := check(v)
	if err != nil {
		return nil, err
	}
	t := &Tokenizer{
		tokens:  v.Tokens,
		attrs:   make([]Attr, n),
		scores:  make([]float32, n),
		tokenID: newStrIndex(v.Tokens), // later duplicates win, as in llama.cpp
		eog:     map[int32]bool{},
		eot:     NoToken, eom: NoToken, sep: NoToken, pad: NoToken,
		warnings: warnings,
	}
	for i := range v.Tokens {
		if v.Scores != nil {
			t.scores[i] = v.Scores[i]
		}
		t.attrs[i] = AttrNormal
		if v.Types != nil {
			t.attrs[i] = attrFromType(v.Types[i])
		}
	}
	switch v.Model {
	case "llama":
		t.kind = kindSPM
		t.bos, t.eos, t.unk = 1, 2, 0
		t.addSpacePrefix, t.addBOS = true, true
	case "gpt2":
		t.kind = kindBPE
		t.bos, t.eos, t.unk = 11, 11, NoToken
		t.cleanSpaces = true
		if err := t.initPre(v.Pre); err != nil {
			return nil, err
		}
		bpe, err := newBPE(v.Merges, t.tokenID, n)
		if err != nil {
			return nil, err
		}
		t.bpe = bpe
	case "bert":
		t.kind = kindWPM
		t.bos, t.eos, t.unk, t.sep, t.pad = 101, NoToken, 100, 102, 0
		t.addBOS, t.cleanSpaces, t.addSEP = true, true, true
		t.wpmLowercase, t.wpmStripAccents = true, true
		if v.Lowercase != nil {
			t.wpmLowercase = *v.Lowercase
			t.wpmStripAccents = *v.Lowercase // llama.cpp: strip_accents defaults to lowercase
		}
		if v.StripAccents != nil {
			t.wpmStripAccents = *v.StripAccents
		}
		for _, s := range v.Tokens {
			t.maxTokenLen = max(t.maxTokenLen, len(s))
		}
	case "":
		return nil, metaErr("tokenizer.ggml.model", -1, "missing")
	default:
		return nil, &UnsupportedError{Key: "tokenizer.ggml.model", Value: v.Model}
	}
	if v.AddSpacePrefix != nil {
		t.addSpacePrefix = *v.AddSpacePrefix
	}
	// Ids from the file replace the defaults; an out-of-range default is
	// disabled, as in llama.cpp. (Out-of-range ids from the file were
	// refused by check, or warned about and ignored for pad and sep.)
	for _, s := range []struct {
		dst *int32
		id  int32
	}{{&t.bos, v.BOS}, {&t.eos, v.EOS}, {&t.eot, v.EOT}, {&t.eom, v.EOM}, {&t.unk, v.UNK}, {&t.sep, v.SEP}, {&t.pad, v.PAD}} {
		if *s.dst >= int32(n) {
			*s.dst = NoToken
		}
		if s.id >= 0 && s.id < int32(n) {
			*s.dst = s.id
		}
	}
	if v.AddBOS != nil {
		t.addBOS = *v.AddBOS
	}
	if v.AddEOS != nil {
		t.addEOS = *v.AddEOS
	}
	if v.AddSEP != nil {
		t.addSEP = *v.AddSEP
	}
	if t.addBOS && t.bos == NoToken {
		return nil, metaErr("tokenizer.ggml.add_bos_token", -1, "is true, but tokenizer.ggml.bos_token_id is not set")
	}
	if t.addEOS && t.eos == NoToken {
		return nil, metaErr("tokenizer.ggml.add_eos_token", -1, "is true, but tokenizer.ggml.eos_token_id is not set")
	}
	if t.kind == kindSPM {
		for b := 0; b < 256; b++ {
			t.spmBytes[b] = t.spmByteToken(byte(b))
		}
		t.spmGlue = spmGlue(t.tokens)
	}
	t.fixAttrs()
	for id := range t.attrs {
		if t.attrs[id]&(AttrControl|AttrUserDefined|AttrUnknown) != 0 {
			t.special = append(t.special, int32(id))
		}
	}
	// llama.cpp sorts by text length only (std::sort, unstable); ties keep
	// id order here.
	sort.SliceStable(t.special, func(a, b int) bool {
		return len(t.tokens[t.special[a]]) > len(t.tokens[t.special[b]])
	})
	// Every piece is a slice of one string: one allocation rather than
	// one per token (a fifth of the build in wasm for 128k tokens).
	size := 0
	for _, s := range t.tokens {
		size += len(s)
	}
	buf := make([]byte, 0, size+size/8)
	ends := make([]int, n)
	for id := range ends {
		buf = t.appendPiece(buf, int32(id))
		ends[id] = len(buf)
	}
	// buf is never written again, so the string may share its bytes.
	all, start := unsafe.String(unsafe.SliceData(buf), len(buf)), 0
	t.pieces = make([]string, n)
	for id, end := range ends {
		t.pieces[id] = all[start:end]
		start = end
	}
	if err := t.phi3Attrs(v.Name); err != nil {
		return nil, err
	}
	return t, nil
}

// spmGlue finds the characters that precede "▁" inside some token, split
// into characters the way the SPM session splits text.
func spmGlue(tokens []string) map[string]bool {
	glue := map[string]bool{}
	for _, tok := range tokens {
		prev := ""
		for i := 0; i < len(tok); {
			n := min(utf8Len(tok[i]), len(tok)-i)
			c := tok[i : i+n]
			if c == "▁" && i > 0 && prev != "▁" {
				glue[prev] = true
			}
			prev = c
			i += n
		}
	}
	return glue
}

// spmByteToken is llama_vocab::byte_to_token for SentencePiece vocabularies.
func (t *Tokenizer) spmByteToken(b byte) int32 {
	const hex = "0123456789ABCDEF"
	if id, ok := t.tokenID.get(string([]byte{'<', '0', 'x', hex[b>>4], hex[b&15], '>'})); ok {
		return id
	}
	if id, ok := t.tokenID.get(string([]byte{b})); ok {
		return id
	}
	return NoToken
}

// NumTokens is the vocabulary size.
func (t *Tokenizer) NumTokens() int { return len(t.tokens) }

// BOS returns the beginning-of-sequence id (NoToken if none).
func (t *Tokenizer) BOS() int32 { return t.bos }

// EOS returns the end-of-sequence id (NoToken if none).
func (t *Tokenizer) EOS() int32 { return t.eos }

// EOT returns the end-of-turn id (NoToken if none).
func (t *Tokenizer) EOT() int32 { return t.eot }

// SEP returns the separator id (NoToken if none); WordPiece appends it
// when adding special tokens.
func (t *Tokenizer) SEP() int32 { return t.sep }

// AddBOS reports whether Encode with addSpecial prepends BOS.
func (t *Tokenizer) AddBOS() bool { return t.addBOS }

// AddEOS reports whether Encode with addSpecial appends EOS.
func (t *Tokenizer) AddEOS() bool { return t.addEOS }

// AddSEP is llama_vocab_get_add_sep: whether a pair of texts (a rerank
// query and document) gets SEP between them.
func (t *Tokenizer) AddSEP() bool { return t.addSEP }

// IsEOG reports whether id ends generation (eos, eot, eom and the
// end-of-turn-looking tokens llama.cpp collects).
func (t *Tokenizer) IsEOG(id int32) bool { return t.eog[id] }

// EOGTokens lists the end-of-generation ids in ascending order.
func (t *Tokenizer) EOGTokens() []int32 {
	ids := make([]int32, 0, len(t.eog))
	for id := range t.eog {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(a, b int) bool { return ids[a] < ids[b] })
	return ids
}

// TokenText returns the raw vocabulary string of id ("" if out of range).
func (t *Tokenizer) TokenText(id int32) string {
	if id < 0 || int(id) >= len(t.tokens) {
		return ""
	}
	return t.tokens[id]
}

// TokenAttr returns the attributes of id (AttrUndefined if out of range).
func (t *Tokenizer) TokenAttr(id int32) Attr {
	if id < 0 || int(id) >= len(t.attrs) {
		return AttrUndefined
	}
	return t.attrs[id]
}

// TokenID looks up the id of an exact vocabulary string.
func (t *Tokenizer) TokenID(text string) (int32, bool) {
	id, ok := t.tokenID.get(text)
	return id, ok
}
