package grammar

import (
	"sort"
	"strconv"
	"strings"
)

// Type is llama_gretype: what a grammar element is.
type Type uint8

// The element types, as llama.cpp numbers them.
const (
	End          Type = iota // end of a rule definition
	Alt                      // start of an alternate definition of a rule
	RuleRef                  // non-terminal: Value is a rule id
	Char                     // terminal: a code point, or the start of a class
	CharNot                  // inverse class ([^...]): Value is its first char
	CharRngUpper             // modifies the preceding Char/CharAlt into a range
	CharAlt                  // another char of the class being built
	CharAny                  // any character (.)
	Token                    // a token id (<[id]>)
	TokenNot                 // any token but this id (!<[id]>)
)

// Element is llama_grammar_element.
type Element struct {
	Type  Type
	Value uint32
}

// Grammar is a parsed GBNF grammar: Rules[id] is a rule's alternates, each a
// sequence, separated by Alt and closed by End, exactly as llama.cpp's
// parser builds them (repetitions rewritten into generated rules).
type Grammar struct {
	Rules   [][]Element
	Symbols map[string]uint32 // rule names, generated ones included ("name_7")
}

// maxRepetition is llama.cpp's MAX_REPETITION_THRESHOLD.
const maxRepetition = 2000

// Bounds that llama.cpp does not have but that keep a hostile grammar from
// exhausting the stack or memory.
const (
	maxNesting  = 512
	maxElements = 1 << 22
)

type parser struct {
	src      string
	symbols  map[string]uint32
	rules    [][]Element
	firstRef map[uint32]int // offset of a symbol's first reference
	nelem    int
	depth    int
}

// perr aborts parsing; recovered in Parse.
type perr struct{ err error }

func (p *parser) at(i int) byte {
	if i < len(p.src) {
		return p.src[i]
	}
	return 0
}

func (p *parser) fail(pos int, msg string) {
	line, col := lineCol(p.src, pos)
	panic(perr{&SyntaxError{Line: line, Col: col, Offset: pos, Msg: msg}})
}

func lineCol(src string, pos int) (int, int) {
	if pos > len(src) {
		pos = len(src)
	}
	before := src[:pos]
	line := strings.Count(before, "\n") + 1
	col := pos - (strings.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isWordChar(c byte) bool {
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || c == '-' || isDigit(c)
}

// Parse reads a grammar in llama.cpp's GBNF syntax. Errors are
// *SyntaxError or *UndefinedRuleError; no input panics. Like a C string,
// the source ends at its first NUL byte.
func Parse(src string) (g *Grammar, err error) {
	if i := strings.IndexByte(src, 0); i >= 0 {
		src = src[:i]
	}
	p := &parser{src: src, symbols: map[string]uint32{}, firstRef: map[uint32]int{}}
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(perr)
			if !ok {
				panic(r)
			}
			g, err = nil, pe.err
		}
	}()
	pos := p.space(0, true)
	for p.at(pos) != 0 {
		pos = p.rule(pos)
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	return &Grammar{Rules: p.rules, Symbols: p.symbols}, nil
}

// validate is the check at the end of llama_grammar_parser::parse: every
// rule id in use has a definition.
func (p *parser) validate() error {
	names := make(map[uint32]string, len(p.symbols))
	keys := make([]string, 0, len(p.symbols))
	for k := range p.symbols {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := names[p.symbols[k]]; !ok {
			names[p.symbols[k]] = k
		}
	}
	undefined := func(id uint32) error {
		off, ok := p.firstRef[id]
		if !ok {
			off = 0
		}
		line, col := lineCol(p.src, off)
		return &UndefinedRuleError{Name: names[id], Line: line, Col: col}
	}
	for id, r := range p.rules {
		if len(r) == 0 {
			return undefined(uint32(id))
		}
		for _, e := range r {
			if e.Type == RuleRef && (int(e.Value) >= len(p.rules) || len(p.rules[e.Value]) == 0) {
				return undefined(e.Value)
			}
		}
	}
	// A referenced symbol above every defined rule id.
	for id := range names {
		if int(id) >= len(p.rules) {
			if _, ok := p.firstRef[id]; ok {
				return undefined(id)
			}
		}
	}
	return nil
}

func (p *parser) space(pos int, newlineOK bool) int {
	for {
		c := p.at(pos)
		switch {
		case c == ' ' || c == '\t':
			pos++
		case c == '#':
			for p.at(pos) != 0 && p.at(pos) != '\r' && p.at(pos) != '\n' {
				pos++
			}
		case newlineOK && (c == '\r' || c == '\n'):
			pos++
		default:
			return pos
		}
	}
}

func (p *parser) name(pos int) int {
	end := pos
	for isWordChar(p.at(end)) {
		end++
	}
	if end == pos {
		p.fail(pos, "expecting name")
	}
	return end
}

func (p *parser) integer(pos int) (uint64, int) {
	end := pos
	for isDigit(p.at(end)) {
		end++
	}
	if end == pos {
		p.fail(pos, "expecting integer")
	}
	v, err := strconv.ParseUint(p.src[pos:end], 10, 64)
	if err != nil {
		p.fail(pos, "integer out of range")
	}
	return v, end
}

func (p *parser) symbolID(name string) uint32 {
	if id, ok := p.symbols[name]; ok {
		return id
	}
	id := uint32(len(p.symbols))
	p.symbols[name] = id
	return id
}

func (p *parser) generateSymbolID(base string) uint32 {
	id := uint32(len(p.symbols))
	p.symbols[base+"_"+strconv.FormatUint(uint64(id), 10)] = id
	return id
}

func (p *parser) addRule(id uint32, r []Element) {
	for len(p.rules) <= int(id) {
		p.rules = append(p.rules, nil)
	}
	p.nelem += len(r)
	if p.nelem > maxElements {
		p.fail(len(p.src), "grammar too large")
	}
	p.rules[id] = r
}

// hex is parse_hex: exactly size hex digits.
func (p *parser) hex(pos, size int) (uint32, int) {
	var v uint32
	end := pos + size
	i := pos
	for ; i < end && p.at(i) != 0; i++ {
		c := p.at(i)
		var d uint32
		switch {
		case 'a' <= c && c <= 'f':
			d = uint32(c-'a') + 10
		case 'A' <= c && c <= 'F':
			d = uint32(c-'A') + 10
		case '0' <= c && c <= '9':
			d = uint32(c - '0')
		default:
			p.fail(pos, "expecting "+strconv.Itoa(size)+" hex chars")
		}
		v = v<<4 + d
	}
	if i != end {
		p.fail(pos, "expecting "+strconv.Itoa(size)+" hex chars")
	}
	return v, i
}

// char is parse_char: an escape or one UTF-8 sequence (decoded without
// validation, as llama.cpp does).
func (p *parser) char(pos int) (uint32, int) {
	c := p.at(pos)
	if c == '\\' {
		switch p.at(pos + 1) {
		case 'x':
			return p.hex(pos+2, 2)
		case 'u':
			return p.hex(pos+2, 4)
		case 'U':
			return p.hex(pos+2, 8)
		case 't':
			return '\t', pos + 2
		case 'r':
			return '\r', pos + 2
		case 'n':
			return '\n', pos + 2
		case '\\', '"', '[', ']', '-':
			return uint32(p.at(pos + 1)), pos + 2
		}
		p.fail(pos, "unknown escape")
	}
	if c == 0 {
		p.fail(pos, "unexpected end of input")
	}
	lookup := [16]int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4}
	n := lookup[c>>4]
	v := uint32(c) & (1<<(8-n) - 1)
	end := pos + n
	i := pos + 1
	for ; i < end && p.at(i) != 0; i++ {
		v = v<<6 + uint32(p.at(i)&0x3f)
	}
	return v, i
}

// token is parse_token for the <[id]> form; <text> needs a vocabulary to
// tokenize with, which a grammar parsed on its own does not have.
func (p *parser) token(pos int) (uint32, int) {
	if p.at(pos) != '<' {
		p.fail(pos, "expecting '<'")
	}
	pos++
	if p.at(pos) != '[' {
		p.fail(pos-1, "token by text (<...>) needs a vocabulary; use <[id]>")
	}
	pos++
	v, end := p.integer(pos)
	if v > 1<<31-1 {
		p.fail(pos, "token id out of range")
	}
	if p.at(end) != ']' {
		p.fail(end, "expecting ']'")
	}
	if p.at(end+1) != '>' {
		p.fail(end+1, "expecting '>'")
	}
	return uint32(v), end + 2
}

func (p *parser) alternates(pos int, ruleName string, ruleID uint32, nested bool) int {
	p.depth++
	if p.depth > maxNesting {
		p.fail(pos, "groups nested too deeply")
	}
	var r []Element
	pos = p.sequence(pos, ruleName, &r, nested)
	for p.at(pos) == '|' {
		r = append(r, Element{Alt, 0})
		pos = p.space(pos+1, true)
		pos = p.sequence(pos, ruleName, &r, nested)
	}
	r = append(r, Element{End, 0})
	p.addRule(ruleID, r)
	p.depth--
	return pos
}

func (p *parser) sequence(pos int, ruleName string, rp *[]Element, nested bool) int {
	r := *rp
	defer func() { *rp = r }()
	lastSymStart := len(r)
	nPrevRules := uint64(1)

	repeat := func(at int, minTimes uint64, maxTimes uint64, noMax bool) {
		if lastSymStart == len(r) {
			p.fail(at, "expecting preceding item to */+/?/{")
		}
		prev := append([]Element(nil), r[lastSymStart:]...)
		total := uint64(1)
		if !noMax && maxTimes > 0 {
			total = maxTimes
		} else if minTimes > 0 {
			total = minTimes
		}
		if nPrevRules*total >= maxRepetition {
			p.fail(at, "number of rules that are going to be repeated multiplied by the new repetition exceeds sane defaults")
		}
		if minTimes == 0 {
			r = r[:lastSymStart]
		} else {
			for i := uint64(1); i < minTimes; i++ {
				r = append(r, prev...)
				if len(r) > maxElements {
					p.fail(at, "grammar too large")
				}
			}
		}
		nOpt := uint64(1)
		if !noMax {
			nOpt = maxTimes - minTimes
		}
		var lastRec uint32
		for i := uint64(0); i < nOpt; i++ {
			rec := append(make([]Element, 0, len(prev)+3), prev...)
			id := p.generateSymbolID(ruleName)
			if i > 0 || noMax {
				ref := lastRec
				if noMax {
					ref = id
				}
				rec = append(rec, Element{RuleRef, ref})
			}
			rec = append(rec, Element{Alt, 0}, Element{End, 0})
			p.addRule(id, rec)
			lastRec = id
		}
		if nOpt > 0 {
			r = append(r, Element{RuleRef, lastRec})
		}
		nPrevRules *= total
	}

	for p.at(pos) != 0 {
		c := p.at(pos)
		switch {
		case c == '"':
			pos++
			lastSymStart = len(r)
			nPrevRules = 1
			for p.at(pos) != '"' {
				if p.at(pos) == 0 {
					p.fail(pos, "unexpected end of input")
				}
				var ch uint32
				ch, pos = p.char(pos)
				r = append(r, Element{Char, ch})
			}
			pos = p.space(pos+1, nested)
		case c == '[':
			pos++
			start := Char
			if p.at(pos) == '^' {
				pos++
				start = CharNot
			}
			lastSymStart = len(r)
			nPrevRules = 1
			for p.at(pos) != ']' {
				if p.at(pos) == 0 {
					p.fail(pos, "unexpected end of input")
				}
				var ch uint32
				ch, pos = p.char(pos)
				t := start
				if lastSymStart < len(r) {
					t = CharAlt
				}
				r = append(r, Element{t, ch})
				if p.at(pos) == '-' && p.at(pos+1) != ']' {
					if p.at(pos+1) == 0 {
						p.fail(pos+1, "unexpected end of input")
					}
					ch, pos = p.char(pos + 1)
					r = append(r, Element{CharRngUpper, ch})
				}
			}
			pos = p.space(pos+1, nested)
		case c == '<' || c == '!':
			t := Token
			if c == '!' {
				t = TokenNot
				pos++
			}
			var id uint32
			id, pos = p.token(pos)
			lastSymStart = len(r)
			nPrevRules = 1
			r = append(r, Element{t, id})
			pos = p.space(pos, nested)
		case isWordChar(c):
			end := p.name(pos)
			id := p.symbolID(p.src[pos:end])
			if _, ok := p.firstRef[id]; !ok {
				p.firstRef[id] = pos
			}
			pos = p.space(end, nested)
			lastSymStart = len(r)
			nPrevRules = 1
			r = append(r, Element{RuleRef, id})
		case c == '(':
			open := pos
			pos = p.space(pos+1, true)
			before := uint64(len(p.symbols))
			sub := p.generateSymbolID(ruleName)
			pos = p.alternates(pos, ruleName, sub, true)
			nPrevRules = max(1, uint64(len(p.symbols))-before)
			lastSymStart = len(r)
			r = append(r, Element{RuleRef, sub})
			if p.at(pos) != ')' {
				if p.at(pos) == 0 {
					p.fail(open, "unclosed '('")
				}
				p.fail(pos, "expecting ')'")
			}
			pos = p.space(pos+1, nested)
		case c == '.':
			lastSymStart = len(r)
			nPrevRules = 1
			r = append(r, Element{CharAny, 0})
			pos = p.space(pos+1, nested)
		case c == '*':
			at := pos
			pos = p.space(pos+1, nested)
			repeat(at, 0, 0, true)
		case c == '+':
			at := pos
			pos = p.space(pos+1, nested)
			repeat(at, 1, 0, true)
		case c == '?':
			at := pos
			pos = p.space(pos+1, nested)
			repeat(at, 0, 1, false)
		case c == '{':
			at := pos
			pos = p.space(pos+1, nested)
			if !isDigit(p.at(pos)) {
				p.fail(pos, "expecting an int")
			}
			var minTimes uint64
			minTimes, pos = p.integer(pos)
			pos = p.space(pos, nested)
			maxTimes, noMax := uint64(0), true
			switch p.at(pos) {
			case '}':
				maxTimes, noMax = minTimes, false
				pos = p.space(pos+1, nested)
			case ',':
				pos = p.space(pos+1, nested)
				if isDigit(p.at(pos)) {
					maxTimes, pos = p.integer(pos)
					noMax = false
					pos = p.space(pos, nested)
				}
				if p.at(pos) != '}' {
					p.fail(pos, "expecting '}'")
				}
				pos = p.space(pos+1, nested)
			default:
				p.fail(pos, "expecting ','")
			}
			if minTimes > maxRepetition {
				p.fail(at, "number of repetitions exceeds sane defaults")
			}
			if !noMax && maxTimes > maxRepetition {
				noMax = true
			}
			if !noMax && maxTimes < minTimes {
				// llama.cpp loops on the unsigned difference here.
				p.fail(at, "repetition maximum below its minimum")
			}
			repeat(at, minTimes, maxTimes, noMax)
		default:
			return pos
		}
	}
	return pos
}

func (p *parser) rule(pos int) int {
	nameEnd := p.name(pos)
	after := p.space(nameEnd, false)
	name := p.src[pos:nameEnd]
	id := p.symbolID(name)
	if !strings.HasPrefix(p.src[after:], "::=") {
		p.fail(after, "expecting ::=")
	}
	pos = p.space(after+3, true)
	pos = p.alternates(pos, name, id, false)
	switch p.at(pos) {
	case '\r':
		if p.at(pos+1) == '\n' {
			pos += 2
		} else {
			pos++
		}
	case '\n':
		pos++
	case 0:
	default:
		p.fail(pos, "expecting newline or end")
	}
	return p.space(pos, true)
}
