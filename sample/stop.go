package sample

import "strings"

// StopMatcher finds stop strings in generated text that arrives one token's
// piece at a time. A stop string may span several pieces, so text that could
// be the start of one is withheld until the next pieces show whether it is;
// text that turns out to be a stop string, and everything after it, is never
// emitted.
type StopMatcher struct {
	stops   []string
	maxLen  int
	held    strings.Builder
	stopped bool
}

// NewStopMatcher makes a matcher for the given stop strings; empty strings
// are ignored.
func NewStopMatcher(stops []string) *StopMatcher {
	m := &StopMatcher{}
	for _, s := range stops {
		if s != "" {
			m.stops = append(m.stops, s)
			m.maxLen = max(m.maxLen, len(s))
		}
	}
	return m
}

// Push adds the next piece of generated text. It returns the text that can
// be shown now and whether a stop string was found; after a stop, Push
// returns nothing and generation should end.
func (m *StopMatcher) Push(piece string) (emit string, stopped bool) {
	if m.stopped {
		return "", true
	}
	if len(m.stops) == 0 {
		return piece, false
	}
	m.held.WriteString(piece)
	buf := m.held.String()
	first := -1
	for _, s := range m.stops {
		if i := strings.Index(buf, s); i >= 0 && (first < 0 || i < first) {
			first = i
		}
	}
	if first >= 0 {
		m.stopped = true
		m.held.Reset()
		return buf[:first], true
	}
	keep := m.partialSuffix(buf)
	m.held.Reset()
	m.held.WriteString(buf[len(buf)-keep:])
	return buf[:len(buf)-keep], false
}

// partialSuffix is the length of the longest suffix of buf that is a proper
// prefix of some stop string: the text that must wait for the next piece.
func (m *StopMatcher) partialSuffix(buf string) int {
	for n := min(len(buf), m.maxLen-1); n > 0; n-- {
		tail := buf[len(buf)-n:]
		for _, s := range m.stops {
			if len(s) > n && strings.HasPrefix(s, tail) {
				return n
			}
		}
	}
	return 0
}

// Flush returns the withheld text once generation ended for another reason
// (end-of-generation token, token limit): it was not a stop string.
func (m *StopMatcher) Flush() string {
	if m.stopped {
		return ""
	}
	s := m.held.String()
	m.held.Reset()
	return s
}

// Stopped reports whether a stop string was found.
func (m *StopMatcher) Stopped() bool { return m.stopped }
