package methods

import (
	"strings"

	"github.com/webgguf/webgguf/chat/internal/gonja/builtins/methods/pystring"
)

// Size bounds that let methods check a result against exec.MaxStringBytes
// or exec.MaxListLen before they build it (webgguf patch).

// splitCount bounds the parts of s split at sep, or at whitespace when sep
// is empty, whatever maxsplit says.
func splitCount(s, sep string) int {
	if sep != "" {
		return strings.Count(s, sep) + 1
	}
	n := 1
	for _, r := range s {
		if pystring.IsPySpace(r) {
			n++
		}
	}
	return n
}

// joinedLen is the length of sep.join(parts).
func joinedLen(sep string, parts []string) int {
	n := 0
	for i, p := range parts {
		n += len(p)
		if i > 0 {
			n += len(sep)
		}
		if n < 0 {
			return -1
		}
	}
	return n
}
