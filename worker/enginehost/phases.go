package enginehost

import (
	"strconv"
	"strings"
	"time"

	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/webgpu"
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

// deviceCounts renders a GPU backend's device counters for the same line:
// the objects the load created and the host time their creation calls
// and the background pipeline compiles kept it waiting.
func deviceCounts(s webgpu.Stats) string {
	return "; gpu objects: buffers " + strconv.FormatUint(s.Buffers, 10) +
		", bind groups " + strconv.FormatUint(s.BindGroups, 10) +
		", pipelines " + strconv.FormatUint(s.Pipelines, 10) +
		"; waits (ms): create " + fmtMs(ms(s.CreateWait)) + ", settle " + fmtMs(ms(s.SettleWait))
}

func fmtMs(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
