package builtins

import (
	"strings"
	"unicode/utf8"

	"github.com/webgguf/webgguf/chat/internal/gonja/exec"
)

// Size bounds that let filters check a result against exec.MaxStringBytes
// before they build it (webgguf patch).

// replacedLen is the length of strings.Replace(s, old, new, n).
func replacedLen(s, old, new string, n int) int {
	var m int
	if old == "" {
		m = utf8.RuneCountInString(s) + 1
	} else {
		m = strings.Count(s, old)
	}
	if n >= 0 && n < m {
		m = n
	}
	return len(s) + exec.MulSize(m, len(new)) - m*len(old)
}

// formatSize bounds the length of fmt.Sprintf(format, args...), the format
// filter. Each verb prints one argument, at most four times its text
// (%q, % x), padded to at most the largest width the format or an argument
// (for *) names; explicit argument indexes (%[1]s) may print any argument
// at every verb.
func formatSize(format string, args []*exec.Value) int {
	verbs := strings.Count(format, "%")
	width := largestNumber(format)
	longest, total := 0, 0
	for _, a := range args {
		n := 4*len(a.String()) + 32
		if a.IsInteger() {
			width = max(width, a.Integer())
		}
		longest = max(longest, n)
		total += n
		exec.CheckString(total / 4)
	}
	if strings.Contains(format, "%[") {
		total = exec.MulSize(verbs, longest)
	}
	return len(format) + total + exec.MulSize(verbs, width+32)
}

// jsonSizeBound bounds the length of pprint's indented JSON of v: strings
// escaped at most six times over, each element on a line indented two
// spaces a level. It stops counting once past exec.MaxStringBytes.
func jsonSizeBound(v *exec.Value, depth int) int {
	if depth > exec.MaxValueDepth {
		exec.Exceed("value depth", 0, exec.MaxValueDepth)
	}
	line := 2*depth + 4
	switch {
	case v == nil || v.IsNil():
		return 4
	case v.IsString():
		return 6*len(v.String()) + 2
	case v.IsList() || v.IsDict():
		n := 2 + line
		v.Iterate(func(_, _ int, key, value *exec.Value) bool {
			n += line + jsonSizeBound(key, depth+1)
			if value != nil {
				n += 2 + jsonSizeBound(value, depth+1)
			}
			return n <= exec.MaxStringBytes
		}, func() {})
		return n
	}
	return 32
}
