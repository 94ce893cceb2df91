package pystring

import "strings"

// Replace returns a copy of the string with all occurrences of substring old replaced by new. If the optional argument count is given, only the first count occurrences are replaced.
func Replace(s string, old, new string, count int) string {
	// webgguf patch: an empty old inserts new before every character and at
	// the end, as Python does (and strings.Replace); gonja returned s.
	return strings.Replace(s, old, new, count)
}

// Replace returns a copy of the string with all occurrences of substring old replaced
// by new. If the optional argument count is given, only the first count occurrences are replaced.
func (pys PyString) Replace(old, new string, count int) PyString {
	return PyString(Replace(string(pys), old, new, count))
}
