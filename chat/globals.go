package chat

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/webgguf/webgguf/chat/internal/gonja/exec"
)

// maxRange caps range(): gonja materialises the whole list, so a template's
// range(10**12) would otherwise allocate without bound.
const maxRange = exec.MaxListLen

// rangeFunction is Python's range with a size cap.
func rangeFunction(params *exec.VarArgs) ([]int, error) {
	var a []int
	for _, p := range params.Args {
		if !p.IsInteger() {
			return nil, fmt.Errorf("range: arguments must be integers, got %s", p.String())
		}
		a = append(a, p.Integer())
	}
	start, stop, step := 0, 0, 1
	switch len(a) {
	case 1:
		stop = a[0]
	case 2:
		start, stop = a[0], a[1]
	case 3:
		start, stop, step = a[0], a[1], a[2]
	default:
		return nil, fmt.Errorf("range: expected 1 to 3 arguments, got %d", len(a))
	}
	if step == 0 {
		return nil, fmt.Errorf("range: step must not be zero")
	}
	// The span is computed unsigned: stop - start overflows an int for
	// range(-2**62, 2**62).
	var span, by uint64
	if step > 0 && stop > start {
		span, by = uint64(stop)-uint64(start), uint64(step)
	} else if step < 0 && start > stop {
		span, by = uint64(start)-uint64(stop), -uint64(step)
	}
	count := uint64(0)
	if by > 0 {
		count = span / by
		if span%by != 0 {
			count++
		}
	}
	if count > maxRange {
		exec.Exceed("list length", int64(min(count, 1<<62)), maxRange)
	}
	n := int(count)
	out := make([]int, n)
	for i := range out {
		out[i] = start + i*step
	}
	return out, nil
}

// strftime formats t with the C/Python strftime directives chat templates use
// (Llama 3.1 writes strftime_now("%d %b %Y")), including glibc's %-d style
// no-padding flag. Unknown directives are copied through like glibc does.
func strftime(format string, t time.Time) string {
	var sb strings.Builder
	for i := 0; i < len(format); i++ {
		// A directive writes at most 9 bytes ("Wednesday") for 2: check
		// as the text grows, so that a long format stops at the limit.
		exec.CheckString(sb.Len() + 16)
		c := format[i]
		if c != '%' || i+1 == len(format) {
			sb.WriteByte(c)
			continue
		}
		i++
		pad := true
		if format[i] == '-' && i+1 < len(format) {
			pad = false
			i++
		}
		num := func(v, width int) {
			s := strconv.Itoa(v)
			if pad {
				for len(s) < width {
					s = "0" + s
				}
			}
			sb.WriteString(s)
		}
		switch format[i] {
		case 'Y':
			sb.WriteString(strconv.Itoa(t.Year()))
		case 'y':
			num(t.Year()%100, 2)
		case 'm':
			num(int(t.Month()), 2)
		case 'd':
			num(t.Day(), 2)
		case 'e':
			s := strconv.Itoa(t.Day())
			if pad && len(s) < 2 {
				s = " " + s
			}
			sb.WriteString(s)
		case 'H':
			num(t.Hour(), 2)
		case 'I':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			num(h, 2)
		case 'M':
			num(t.Minute(), 2)
		case 'S':
			num(t.Second(), 2)
		case 'j':
			num(t.YearDay(), 3)
		case 'p':
			if t.Hour() < 12 {
				sb.WriteString("AM")
			} else {
				sb.WriteString("PM")
			}
		case 'b', 'h':
			sb.WriteString(t.Month().String()[:3])
		case 'B':
			sb.WriteString(t.Month().String())
		case 'a':
			sb.WriteString(t.Weekday().String()[:3])
		case 'A':
			sb.WriteString(t.Weekday().String())
		case 'Z':
			name, _ := t.Zone()
			sb.WriteString(name)
		case '%':
			sb.WriteByte('%')
		default:
			sb.WriteByte('%')
			if !pad {
				sb.WriteByte('-')
			}
			sb.WriteByte(format[i])
		}
	}
	return sb.String()
}
