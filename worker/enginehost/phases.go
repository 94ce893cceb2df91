package enginehost

import (
	"strconv"
	"strings"
	"time"

	"github.com/webgguf/webgguf/engine"
)

// lapTimer returns a function giving the time since the previous call
// (since start for the first).
func lapTimer(start time.Time) func() time.Duration {
	last := start
	return func() time.Duration {
		now := time.Now()
		d := now.Sub(last)
		last = now
		return d
	}
}

// loadPhases renders where a load's time went, for a debug log line: the
// host's steps (parse the GGUF header, build the tokenizer and chat
// template, open the backend's device) and then engine.Load's.
func loadPhases(totalMs float64, open, tok, backend time.Duration, eng []engine.LoadPhase) string {
	var b strings.Builder
	b.WriteString("load phases (ms): total " + fmtMs(totalMs))
	add := func(name string, d time.Duration) { b.WriteString(", " + name + " " + fmtMs(ms(d))) }
	add("open", open)
	add("tokenizer+template", tok)
	add("backend", backend)
	for _, p := range eng {
		add(p.Name, p.D)
	}
	return b.String()
}

func fmtMs(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
