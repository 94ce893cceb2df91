package jsonschema

import (
	"strconv"
	"strings"
)

const nonLiteral = "|.()[]{}*+?"
const escapedInRegexpsNotLiterals = "^$.[]()|{}*+?"

type piece struct {
	s       string
	literal bool
}

func (p piece) rule() string {
	if p.literal {
		return `"` + p.s + `"`
	}
	return p.s
}

// visitPattern is llama.cpp's _visit_pattern: an anchored regular
// expression (^...$) translated into GBNF, character classes and escapes
// carried over as they are written.
func (c *converter) visitPattern(pattern, name, ptr string) string {
	if len(pattern) < 2 || pattern[0] != '^' || pattern[len(pattern)-1] != '$' {
		unsupported(ptr, "pattern", "a pattern must start with '^' and end with '$'")
	}
	sub := pattern[1 : len(pattern)-1]
	subIDs := map[string]string{}
	i, n := 0, len(sub)
	fail := func(msg string) { bad(ptr, msg) }
	var transform func() piece
	transform = func() piece {
		start := i
		var seq []piece
		join := func() piece {
			var out []string
			lit := ""
			for _, p := range seq {
				if p.literal {
					lit += p.s
					continue
				}
				if lit != "" {
					out = append(out, piece{lit, true}.rule())
					lit = ""
				}
				out = append(out, p.rule())
			}
			if lit != "" {
				out = append(out, piece{lit, true}.rule())
			}
			return piece{strings.Join(out, " "), false}
		}
		for i < n {
			ch := sub[i]
			switch {
			case ch == '.':
				seq = append(seq, piece{c.addRule("dot", `[^\x0A\x0D]`), false})
				i++
			case ch == '(':
				i++
				if i < n && sub[i] == '?' {
					if i+1 < n && sub[i+1] == ':' {
						i += 2
					} else {
						unsupported(ptr, "pattern", "lookahead and lookbehind groups are not supported")
					}
				}
				seq = append(seq, piece{"(" + transform().rule() + ")", false})
			case ch == ')':
				i++
				if start > 0 && sub[start-1] != '(' && (start < 2 || sub[start-2] != '?' || sub[start-1] != ':') {
					fail("unbalanced parentheses in pattern")
				}
				if start == 0 {
					fail("unbalanced parentheses in pattern")
				}
				return join()
			case ch == '[':
				sq := "["
				i++
				for i < n && sub[i] != ']' {
					if sub[i] == '\\' {
						sq += sub[i:min(i+2, n)]
						i += 2
					} else {
						sq += sub[i : i+1]
						i++
					}
				}
				if i >= n {
					fail("unbalanced square brackets in pattern")
				}
				i++
				seq = append(seq, piece{sq + "]", false})
			case ch == '|':
				seq = append(seq, piece{"|", false})
				i++
			case ch == '*' || ch == '+' || ch == '?':
				if len(seq) == 0 {
					fail("a quantifier without an operand in pattern")
				}
				seq[len(seq)-1] = piece{seq[len(seq)-1].rule() + string(ch), false}
				i++
			case ch == '{':
				j := strings.IndexByte(sub[i:], '}')
				if j < 0 {
					fail("unbalanced curly brackets in pattern")
				}
				body := sub[i+1 : i+j]
				i += j + 1
				nums := strings.Split(body, ",")
				minT, maxT := 0, noMax
				num := func(s string) int {
					v, err := strconv.Atoi(strings.TrimSpace(s))
					if err != nil || v < 0 || v > 1<<16 {
						fail("invalid number in curly brackets in pattern")
					}
					return v
				}
				switch len(nums) {
				case 1:
					minT = num(nums[0])
					maxT = minT
				case 2:
					if nums[0] != "" {
						minT = num(nums[0])
					}
					if nums[1] != "" {
						maxT = num(nums[1])
					}
				default:
					fail("wrong number of values in curly brackets in pattern")
				}
				if minT > maxT {
					fail("a repetition's minimum exceeds its maximum in pattern")
				}
				if len(seq) == 0 {
					fail("a repetition without an operand in pattern")
				}
				last := &seq[len(seq)-1]
				s := last.s
				if !last.literal {
					id, ok := subIDs[s]
					if !ok {
						subIDs[s] = ""
						id = c.addRule(name+"-"+strconv.Itoa(len(subIDs)), s)
						subIDs[s] = id
					}
					s = id
				} else {
					s = `"` + s + `"`
				}
				*last = piece{buildRepetition(s, minT, maxT, ""), false}
			default:
				lit := ""
				isNon := func(b byte) bool { return strings.IndexByte(nonLiteral, b) >= 0 }
				for i < n {
					if sub[i] == '\\' && i < n-1 {
						next := sub[i+1]
						if strings.IndexByte(escapedInRegexpsNotLiterals, next) >= 0 {
							i++
							lit += sub[i : i+1]
							i++
						} else {
							lit += sub[i : i+2]
							i += 2
						}
					} else if sub[i] == '"' {
						lit += `\"`
						i++
					} else if !isNon(sub[i]) && (i == n-1 || lit == "" || sub[i+1] == '.' || !isNon(sub[i+1])) {
						lit += sub[i : i+1]
						i++
					} else {
						break
					}
				}
				if lit == "" {
					fail("unexpected " + strconv.QuoteRune(rune(ch)) + " in pattern")
				}
				seq = append(seq, piece{lit, true})
			}
		}
		return join()
	}
	body := transform()
	return c.addRule(name, `"\"" (`+body.rule()+`) "\"" space`)
}
