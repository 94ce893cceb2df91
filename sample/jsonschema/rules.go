package jsonschema

import (
	"math"
	"strconv"
	"strings"
)

// spaceRule is llama.cpp's SPACE_RULE: optional whitespace between tokens,
// bounded so a model cannot pad forever.
const spaceRule = `| " " | "\n"{1,2} [ \t]{0,20}`

type builtin struct {
	content string
	deps    []string
}

// primitiveRules and formatRules are llama.cpp's PRIMITIVE_RULES and
// STRING_FORMAT_RULES, verbatim.
var primitiveRules = map[string]builtin{
	"boolean":       {`("true" | "false") space`, nil},
	"decimal-part":  {`[0-9]{1,16}`, nil},
	"integral-part": {`[0] | [1-9] [0-9]{0,15}`, nil},
	"number":        {`("-"? integral-part) ("." decimal-part)? ([eE] [-+]? integral-part)? space`, []string{"integral-part", "decimal-part"}},
	"integer":       {`("-"? integral-part) space`, []string{"integral-part"}},
	"value":         {`object | array | string | number | boolean | null`, []string{"object", "array", "string", "number", "boolean", "null"}},
	"object":        {`"{" space ( string ":" space value ("," space string ":" space value)* )? "}" space`, []string{"string", "value"}},
	"array":         {`"[" space ( value ("," space value)* )? "]" space`, []string{"value"}},
	"uuid":          {`"\"" [0-9a-fA-F]{8} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{12} "\"" space`, nil},
	"char":          {`[^"\\\x7F\x00-\x1F] | [\\] (["\\bfnrt] | "u" [0-9a-fA-F]{4})`, nil},
	"string":        {`"\"" char* "\"" space`, []string{"char"}},
	"null":          {`"null" space`, nil},
}

var formatRules = map[string]builtin{
	// date is calendar-exact, unlike llama.cpp's (which allows 02-31):
	// 30-day months, February's 28 days, and 02-29 in Gregorian leap
	// years only (YY a non-zero multiple of 4, or YY = 00 and CC one).
	"date":             {dateRule, nil},
	"time":             {`([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9] ":" [0-5] [0-9] ( "." [0-9]{3} )? ( "Z" | ( "+" | "-" ) ( [01] [0-9] | "2" [0-3] ) ":" [0-5] [0-9] )`, nil},
	"date-time":        {`date "T" time`, []string{"date", "time"}},
	"date-string":      {`"\"" date "\"" space`, []string{"date"}},
	"time-string":      {`"\"" time "\"" space`, []string{"time"}},
	"date-time-string": {`"\"" date-time "\"" space`, []string{"date-time"}},
}

// dateRule is the grammar for a full-date of RFC 3339.
const dateRule = `[0-9]{4} "-" ( ( "0" [13578] | "1" [02] ) "-" ( "0" [1-9] | [1-2] [0-9] | "3" [0-1] ) | ( "0" [469] | "11" ) "-" ( "0" [1-9] | [1-2] [0-9] | "30" ) | "02-" ( "0" [1-9] | "1" [0-9] | "2" [0-8] ) ) | ( [0-9] [0-9] ( [02468] [48] | [13579] [26] | [2468] "0" ) | ( [02468] [048] | [13579] [26] ) "00" ) "-02-29"`

// llamaDateRule is llama.cpp's date rule, which accepts days that do not
// exist (02-30, 04-31).
const llamaDateRule = `[0-9]{4} "-" ( "0" [1-9] | "1" [0-2] ) "-" ( "0" [1-9] | [1-2] [0-9] | "3" [0-1] )`

func isReserved(name string) bool {
	if name == "root" {
		return true
	}
	_, p := primitiveRules[name]
	_, f := formatRules[name]
	return p || f
}

// ruleName replaces each run of characters other than [a-zA-Z0-9-] by "-".
func ruleName(s string) string {
	var b strings.Builder
	run := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' {
			b.WriteByte(c)
			run = false
		} else if !run {
			b.WriteByte('-')
			run = true
		}
	}
	return b.String()
}

// formatLiteral quotes s as a GBNF string literal.
func formatLiteral(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\r':
			b.WriteString(`\r`)
		case '\n':
			b.WriteString(`\n`)
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// rangeChar escapes a character for use inside a GBNF [...] class.
func rangeChar(r rune) string {
	switch r {
	case '\r':
		return `\r`
	case '\n':
		return `\n`
	case '"', ']', '-', '\\', '^':
		return `\` + string(r)
	}
	return string(r)
}

const noMax = math.MaxInt

// buildRepetition is llama.cpp's build_repetition.
func buildRepetition(item string, minItems, maxItems int, sep string) string {
	hasMax := maxItems != noMax
	if maxItems == 0 {
		return ""
	}
	if minItems == 0 && maxItems == 1 {
		return item + "?"
	}
	if sep == "" {
		if minItems == 1 && !hasMax {
			return item + "+"
		}
		if minItems == 0 && !hasMax {
			return item + "*"
		}
		s := item + "{" + strconv.Itoa(minItems) + ","
		if hasMax {
			s += strconv.Itoa(maxItems)
		}
		return s + "}"
	}
	m := maxItems
	if hasMax {
		m = maxItems - 1
	}
	result := item + " " + buildRepetition("("+sep+" "+item+")", max(minItems-1, 0), m, "")
	if minItems == 0 {
		result = "(" + result + ")?"
	}
	return result
}

// buildMinMaxInt is llama.cpp's build_min_max_int: a grammar for the
// decimal integers in [minV, maxV], either bound absent as MinInt64 or
// MaxInt64.
func buildMinMaxInt(minV, maxV int64, out *strings.Builder, decimalsLeft int, topLevel bool) {
	hasMin := minV != math.MinInt64
	hasMax := maxV != math.MaxInt64
	digitRange := func(from, to byte) {
		out.WriteByte('[')
		if from == to {
			out.WriteByte(from)
		} else {
			out.WriteByte(from)
			out.WriteByte('-')
			out.WriteByte(to)
		}
		out.WriteByte(']')
	}
	moreDigits := func(minD, maxD int) {
		out.WriteString("[0-9]")
		if minD == maxD && minD == 1 {
			return
		}
		out.WriteByte('{')
		out.WriteString(strconv.Itoa(minD))
		if maxD != minD {
			out.WriteByte(',')
			if maxD != noMax {
				out.WriteString(strconv.Itoa(maxD))
			}
		}
		out.WriteByte('}')
	}
	var uniformRange func(from, to string)
	uniformRange = func(from, to string) {
		i := 0
		for i < len(from) && i < len(to) && from[i] == to[i] {
			i++
		}
		if i > 0 {
			out.WriteString(`"` + from[:i] + `"`)
		}
		if i < len(from) && i < len(to) {
			if i > 0 {
				out.WriteByte(' ')
			}
			subLen := len(from) - i - 1
			if subLen > 0 {
				fromSub, toSub := from[i+1:], to[i+1:]
				zeros, nines := strings.Repeat("0", subLen), strings.Repeat("9", subLen)
				toReached := false
				out.WriteByte('(')
				if fromSub == zeros {
					digitRange(from[i], to[i]-1)
					out.WriteByte(' ')
					moreDigits(subLen, subLen)
				} else {
					out.WriteString("[" + from[i:i+1] + "] ")
					out.WriteByte('(')
					uniformRange(fromSub, nines)
					out.WriteByte(')')
					if from[i] < to[i]-1 {
						out.WriteString(" | ")
						if toSub == nines {
							digitRange(from[i]+1, to[i])
							toReached = true
						} else {
							digitRange(from[i]+1, to[i]-1)
						}
						out.WriteByte(' ')
						moreDigits(subLen, subLen)
					}
				}
				if !toReached {
					out.WriteString(" | ")
					digitRange(to[i], to[i])
					out.WriteByte(' ')
					uniformRange(zeros, toSub)
				}
				out.WriteByte(')')
			} else {
				out.WriteString("[" + from[i:i+1] + "-" + to[i:i+1] + "]")
			}
		}
	}

	if hasMin && hasMax {
		if minV < 0 && maxV < 0 {
			out.WriteString(`"-" (`)
			buildMinMaxInt(-maxV, -minV, out, decimalsLeft, true)
			out.WriteString(")")
			return
		}
		if minV < 0 {
			out.WriteString(`"-" (`)
			buildMinMaxInt(0, -minV, out, decimalsLeft, true)
			out.WriteString(") | ")
			minV = 0
		}
		minS, maxS := strconv.FormatInt(minV, 10), strconv.FormatInt(maxV, 10)
		for digits := len(minS); digits < len(maxS); digits++ {
			uniformRange(minS, strings.Repeat("9", digits))
			minS = "1" + strings.Repeat("0", digits)
			out.WriteString(" | ")
		}
		uniformRange(minS, maxS)
		return
	}
	lessDecimals := max(decimalsLeft-1, 1)
	if hasMin {
		switch {
		case minV < 0:
			out.WriteString(`"-" (`)
			buildMinMaxInt(math.MinInt64, -minV, out, decimalsLeft, false)
			out.WriteString(") | [0] | [1-9] ")
			moreDigits(0, decimalsLeft-1)
		case minV == 0:
			if topLevel {
				out.WriteString("[0] | [1-9] ")
				moreDigits(0, lessDecimals)
			} else {
				moreDigits(1, decimalsLeft)
			}
		case minV <= 9:
			c := byte('0' + minV)
			start := byte('0')
			if topLevel {
				start = '1'
			}
			if c > start {
				digitRange(start, c-1)
				out.WriteByte(' ')
				moreDigits(1, lessDecimals)
				out.WriteString(" | ")
			}
			digitRange(c, '9')
			out.WriteByte(' ')
			moreDigits(0, lessDecimals)
		default:
			minS := strconv.FormatInt(minV, 10)
			n := len(minS)
			c := minS[0]
			if c > '1' {
				start := byte('0')
				if topLevel {
					start = '1'
				}
				digitRange(start, c-1)
				out.WriteByte(' ')
				moreDigits(n, lessDecimals)
				out.WriteString(" | ")
			}
			digitRange(c, c)
			out.WriteString(" (")
			rest, _ := strconv.ParseInt(minS[1:], 10, 64)
			buildMinMaxInt(rest, math.MaxInt64, out, lessDecimals, false)
			out.WriteString(")")
			if c < '9' {
				out.WriteString(" | ")
				digitRange(c+1, '9')
				out.WriteByte(' ')
				moreDigits(n-1, lessDecimals)
			}
		}
		return
	}
	// hasMax only (the caller never passes neither).
	if maxV >= 0 {
		if topLevel {
			out.WriteString(`"-" [1-9] `)
			moreDigits(0, lessDecimals)
			out.WriteString(" | ")
		}
		buildMinMaxInt(0, maxV, out, decimalsLeft, true)
	} else {
		out.WriteString(`"-" (`)
		buildMinMaxInt(-maxV, math.MaxInt64, out, decimalsLeft, false)
		out.WriteString(")")
	}
}
