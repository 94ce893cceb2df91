package chat

import (
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webgguf/webgguf/chat/internal/gonja/exec"
)

// hostileCase is a template written to exhaust the stack, memory or time of
// whoever renders it (issue 28). Each failed before the limits: a fatal
// stack overflow or out-of-memory error, which recover cannot catch, or a
// render that never ended.
type hostileCase struct {
	name string
	src  string
	// limit is the *LimitError's Limit the template must fail with; empty
	// when it must render, its output bounded by MaxOutput; "-" when it
	// must fail with a plain *RuntimeError.
	limit string
	// parse is whether Parse already refuses it (the worker parses at load).
	parse bool
}

// s16 is a 16 MB string: the largest one a template may build.
const s16 = "{% set s = 'x' * 16000000 %}"

func hostileCases() []hostileCase {
	list100 := s16 + "{% set l = [" + strings.TrimSuffix(strings.Repeat("s, ", 100), ", ") + "] %}"
	return []hostileCase{
		// Issue 28's cases.
		{"parens 100000 deep", "{{ " + strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000) + " }}", "nesting depth", true},
		{"brackets 100000 deep", "{{ " + strings.Repeat("[", 100000) + "1" + strings.Repeat("]", 100000) + " }}", "nesting depth", true},
		{"replace to 1 GB", "{{ ('x' * 1000) | replace('x', 'x' * 1000000) }}", "string bytes", false},
		{"replace doubling", "{% set ns = namespace(s='xx') %}{% for i in range(100) %}{% set ns.s = ns.s | replace('x', 'xx') %}{% endfor %}{{ ns.s | length }}", "string bytes", false},
		{"indent to 1 GB", "{{ ('x\\n' * 1000) | indent(1000000) }}", "string bytes", false},
		{"format ten 16 MB", s16 + "{{ '%s%s%s%s%s%s%s%s%s%s' | format(s, s, s, s, s, s, s, s, s, s) }}", "string bytes", false},
		{"join 100 x 16 MB", list100 + "{{ l | join }}", "string bytes", false},
		{"tojson 100 x 16 MB", list100 + "{{ l | tojson }}", "string bytes", false},
		{"string 100 x 16 MB", list100 + "{{ l | string }}", "string bytes", false},
		{"recursive loop", "{% for x in [1] recursive %}{{ loop([1]) }}{% endfor %}", "call depth", false},
		// Their relatives.
		{"blocks 40000 deep", strings.Repeat("{% if 1 %}", 40000) + strings.Repeat("{% endif %}", 40000), "nesting depth", true},
		{"dict 50000 deep", "{{ " + strings.Repeat("{'a': ", 50000) + "1" + strings.Repeat("}", 50000) + " }}", "nesting depth", true},
		{"operator chain", "{{ 1" + strings.Repeat(" + 1", 100000) + " }}", "expression depth", true},
		{"attribute chain", "{{ x" + strings.Repeat("[0]", 100000) + " }}", "expression depth", true},
		{"exponential macro", "{% macro f(n) %}{% if n > 0 %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(60) }}", "render steps", false},
		{"recursive loop fan-out", "{% for x in [60] recursive %}{% if x > 0 %}{{ loop([x - 1, x - 1]) }}{% endif %}{% endfor %}", "render steps", false},
		{"center", "{{ 'x' | center(1000000) | length }}", "", false},
		{"center in a loop", "{% set ns = namespace(l=[]) %}{% for i in range(1000) %}{% set ns.l = ns.l + ['x' | center(1000000)] %}{% endfor %}", "render bytes", false},
		{"wordwrap", "{{ ('x ' * 8000000) | wordwrap(1000000) | length }}", "", false},
		{"list doubling", "{% set ns = namespace(l=[1]) %}{% for i in range(40) %}{% set ns.l = ns.l + ns.l %}{% endfor %}", "list length", false},
		{"list repeat", "{{ ([1] * 1000000000) | length }}", "", false},
		{"huge range", "{% for i in range(-4611686018427387904, 4611686018427387904) %}{% endfor %}", "list length", false},
		{"shared list print", "{% set ns = namespace(l=[1]) %}{% for i in range(60) %}{% set ns.l = [ns.l, ns.l] %}{% endfor %}{{ ns.l }}", "value size", false},
		{"shared strings print", "{% set ns = namespace(l=['x' * 1000000]) %}{% for i in range(60) %}{% set ns.l = [ns.l, ns.l] %}{% endfor %}{{ ns.l }}", "string bytes", false},
		{"shared list compare", "{% set ns = namespace(l=[1]) %}{% for i in range(60) %}{% set ns.l = [ns.l, ns.l] %}{% endfor %}{{ ns.l == ns.l }}", "value size", false},
		{"shared list tojson", "{% set ns = namespace(l=[1]) %}{% for i in range(60) %}{% set ns.l = [ns.l, ns.l] %}{% endfor %}{{ ns.l | tojson }}", "string bytes", false},
		{"shared list method", "{% set ns = namespace(l=[1]) %}{% for i in range(60) %}{% set ns.l = [ns.l, ns.l] %}{% endfor %}{{ ns.l.copy() }}", "value size", false},
		{"nest 100000", "{% set ns = namespace(l=[]) %}{% for i in range(100000) %}{% set ns.l = [ns.l] %}{% endfor %}{{ ns.l }}", "value depth", false},
		{"nest 100000 compare", "{% set ns = namespace(l=[]) %}{% for i in range(100000) %}{% set ns.l = [ns.l] %}{% endfor %}{{ ns.l == ns.l }}", "value depth", false},
		{"dict growth", "{% set d = {} %}{% for i in range(1000000) %}{% do d.update({i | string: i}) %}{% endfor %}", "render steps", false},
		{"string accumulation", "{% set ns = namespace(s='') %}{% for i in range(100000) %}{% set ns.s = ns.s ~ ('x' * 10000) %}{% endfor %}", "render bytes", false},
		{"slicing in a loop", s16 + "{% for i in range(1000000) %}{% set t = s[1:] %}{% endfor %}", "render bytes", false},
		{"namespace accumulation", "{% set ns = namespace() %}{% for i in range(1000) %}{% set ns.x = ('y' * 1000000) ~ i %}{% set ns.l = [ns.x, ns.l] %}{% endfor %}", "render bytes", false},
		{"batch", "{{ [1] | batch(1000000, 'x') | length }}", "", false},
		{"batch in a loop", "{% for i in range(1000) %}{% set b = [1] | batch(1000000, 'x') %}{% endfor %}", "render steps", false},
		{"slice", "{% for i in range(1000) %}{% set b = [1] | slice(1000000, 'x') %}{% endfor %}", "render bytes", false},
		{"percent format", s16 + "{{ '%s%s%s%s' % (s, s, s, s) }}", "string bytes", false},
		{"str.format repeat", "{% set f = '{0}' * 1000000 %}{{ f.format('x' * 1000) }}", "string bytes", false},
		{"format index repeat", "{{ ('%[1]s' * 100000) | format('x' * 1000) }}", "string bytes", false},
		{"escape", "{{ ('<' * 16000000) | e }}", "string bytes", false},
		{"urlencode", "{{ ('/' * 1000 ~ ' ' * 15000000) | urlencode }}", "string bytes", false},
		{"list of a string", "{{ ('x' * 16000000) | list | length }}", "list length", false},
		{"split", "{% set t = 'x ' * 8000000 %}{{ t.split(' ') | length }}", "list length", false},
		{"str.join", list100 + "{{ ''.join(l) }}", "string bytes", false},
		{"expandtabs", "{% set t = '\\t' * 100000 %}{{ t.expandtabs('', 1000000) }}", "string bytes", false},
		{"sort big strings", list100 + "{% for i in range(100) %}{% set t = l | sort %}{% endfor %}", "render steps", false},
		{"sort nested big strings", s16 + "{% set t = [s] %}{% set l = [" + strings.TrimSuffix(strings.Repeat("t, ", 100), ", ") + "] %}{{ l | sort | length }}", "render steps", false},
		{"deep expressions in deep macros", "{% macro f(n) %}{{ ((f(n - 1) | length) if n > 0 else 0)" + strings.Repeat(" + 1", 480) + " }}{% endmacro %}{{ f(98) }}", "", false},
		{"in scans", s16 + "{% for i in range(1000000) %}{% if 'y' in s %}{% endif %}{% endfor %}", "render steps", false},
		{"macro output", "{% macro m() %}{% for i in range(100) %}{{ 'x' * 1000000 }}{% endfor %}{% endmacro %}{% set x = m() %}", "string bytes", false},
		{"set block", "{% set x %}{% for i in range(100) %}{{ 'x' * 1000000 }}{% endfor %}{% endset %}", "string bytes", false},
		{"pprint", list100 + "{{ l | pprint }}", "string bytes", false},
		{"strftime", "{{ strftime_now('%A' * 8000000) }}", "string bytes", false},
		{"nested loops", "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}", "render steps", false},
		{"string iteration", "{% for c in 'x' * 16000000 %}{% endfor %}", "list length", false},
		{"error under a long chain", "{{ nosuch()" + strings.Repeat(" ~ '"+strings.Repeat("z", 2000)+"'", 490) + " }}", "-", false},
		{"error under nesting", strings.Repeat("{% if true %}", 95) + "{{ [" + strings.Repeat("1,", 200000) + "1] ~ (1).nosuch() }}" + strings.Repeat("{% endif %}", 95), "-", false},
		{"output bomb", "{% for a in range(100) %}{{ 'x' * 1000000 }}{% endfor %}", "output bytes", false},
	}
}

// TestHostileTemplates: every hostile template ends within 20 s with the
// expected *LimitError, or renders. On Linux the cases run in a child
// process limited to 4 GiB of address space (a runaway allocation then
// kills the child, not the test machine), whose peak resident memory must
// stay under maxHostileRSS.
func TestHostileTemplates(t *testing.T) {
	if runtime.GOOS == "linux" && os.Getenv("CHAT_HOSTILE_CHILD") == "" {
		runHostileChild(t)
		return
	}
	msgs := []Message{{Role: "user", Content: "hi"}}
	for _, c := range hostileCases() {
		t.Run(c.name, func(t *testing.T) { checkHostile(t, c, msgs) })
	}
}

func checkHostile(t *testing.T, c hostileCase, msgs []Message) {
	{
		start := time.Now()
		_, perr := Parse(c.src)
		if c.parse != (perr != nil) {
			t.Errorf("%s: parse error %v, want one: %v", c.name, perr, c.parse)
		}
		_, err := Render(c.src, msgs, Options{})
		d := time.Since(start)
		if d > 20*time.Second {
			t.Errorf("%s: took %v", c.name, d)
		}
		if os.Getenv("CHAT_HOSTILE_VERBOSE") != "" {
			t.Logf("%-24s %8v %v", c.name, d.Round(time.Millisecond), err)
		}
		runtime.GC() // so that each case's peak is its own
		if c.limit == "-" {
			var re *RuntimeError
			if !errors.As(err, &re) || len(err.Error()) > 2000 {
				t.Errorf("%s: got %T %v", c.name, err, err)
			}
			return
		}
		if c.limit == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			return
		}
		var le *LimitError
		if !errors.As(err, &le) || le.Limit != c.limit {
			t.Errorf("%s: got %T %v, want the %q limit", c.name, err, err, c.limit)
			return
		}
		if Limits()[le.Limit] != le.Max {
			t.Errorf("%s: %v: Max is not the documented %d", c.name, le, Limits()[le.Limit])
		}
		var se *SyntaxError
		var re *RuntimeError
		if c.parse && !errors.As(err, &se) || !c.parse && !errors.As(err, &re) {
			t.Errorf("%s: %T is not wrapped in the error of its phase", c.name, err)
		}
		if !strings.Contains(err.Error(), c.limit) || len(err.Error()) > 2000 {
			t.Errorf("%s: message %q", c.name, err.Error())
		}
	}
}

// maxHostileRSS bounds the peak resident memory of the process that runs
// every hostile case. Before the limits one case alone took 1 to 5 GB or
// crashed the process.
const maxHostileRSS = 768 << 20

// runHostileChild runs TestHostileTemplates in a child process and checks
// its peak resident memory.
func runHostileChild(t *testing.T) {
	cmd := osexec.Command("sh", "-c", `ulimit -v 4194304 && exec "$0" -test.run='^TestHostileTemplates$' -test.v`, os.Args[0])
	cmd.Env = append(os.Environ(), "CHAT_HOSTILE_CHILD=1", "CHAT_HOSTILE_VERBOSE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, tail(out))
	}
	rss := maxRSS(cmd.ProcessState)
	t.Logf("%d hostile templates; child peak RSS %d MiB", len(hostileCases()), rss>>20)
	if testing.Verbose() {
		t.Logf("%s", out)
	}
	if rss > maxHostileRSS {
		t.Errorf("child peak RSS %d MiB, more than %d MiB\n%s", rss>>20, maxHostileRSS>>20, tail(out))
	}
}

func tail(b []byte) string {
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// renderGuarded renders src with a time and memory budget: it fails t if
// the render takes more than limit or the live heap, sampled every
// millisecond, grows more than maxHeap past where it started.
func renderGuarded(t *testing.T, src string, msgs []Message, opts Options, limit time.Duration, maxHeap uint64) error {
	t.Helper()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				metrics.Read(s)
				if v := s[0].Value.Uint64(); v > peak.Load() {
					peak.Store(v)
				}
			}
		}
	}()
	start := time.Now()
	_, err := Render(src, msgs, opts)
	d := time.Since(start)
	close(done)
	wg.Wait()
	if d > limit {
		t.Errorf("render took %v, more than %v", d, limit)
	}
	if p := peak.Load(); p > base && p-base > maxHeap {
		t.Errorf("render grew the heap by %d MiB, more than %d MiB", (p-base)>>20, maxHeap>>20)
	}
	return err
}

func ExampleLimitError() {
	_, err := Render("{% for x in [1] recursive %}{{ loop([1]) }}{% endfor %}", nil, Options{})
	var le *LimitError
	if errors.As(err, &le) {
		fmt.Println(le.Limit, le.Max)
	}
	// Output: call depth 100
}

// TestRealTemplatesBudget: the real templates stay far inside the render
// budget, even for a conversation of 2000 messages (1 MB): at most a
// quarter of the steps and bytes a render may spend.
func TestRealTemplatesBudget(t *testing.T) {
	convs, _ := loadConversations(t)
	long := make([]Message, 0, 2000)
	for i := 0; i < 1000; i++ {
		long = append(long,
			Message{Role: "user", Content: strings.Repeat(fmt.Sprintf("question %d ", i), 40)},
			Message{Role: "assistant", Content: strings.Repeat(fmt.Sprintf("answer %d. ", i), 40)})
	}
	templates := loadTemplates(t)
	// Patterns real templates use to gather messages, which gonja made
	// quadratic before: append copied the whole list on every call.
	templates["synthetic-append"] = "{% set ns = namespace(l=[], s='') %}{% for m in messages %}{% do ns.l.append(m.content) %}{% set ns.s = ns.s ~ m.role %}{% endfor %}{{ ns.l | length }}{% for m in ns.l %}{{ m }}{% endfor %}"
	for name, src := range templates {
		tpl, err := Parse(src)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var maxSteps, maxBytes int64
		for _, conv := range convs {
			msgs, tools := conv.decode(t)
			b := exec.NewBudget()
			_, _ = tpl.render(msgs, Options{AddGenerationPrompt: true, Tools: tools}, b)
			maxSteps, maxBytes = max(maxSteps, b.Steps()), max(maxBytes, b.Bytes())
		}
		b := exec.NewBudget()
		_, err = tpl.render(long, Options{AddGenerationPrompt: true}, b)
		var le *LimitError
		if errors.As(err, &le) {
			t.Errorf("%s: 2000 messages: %v", name, err)
		}
		t.Logf("%-28s test conversations: ≤%7d steps ≤%8d bytes; 2000 messages: %8d steps %9d bytes", name, maxSteps, maxBytes, b.Steps(), b.Bytes())
		if b.Steps() > exec.MaxRenderSteps/4 || b.Bytes() > exec.MaxRenderBytes/4 {
			t.Errorf("%s: 2000 messages spend %d steps, %d bytes: too close to the limits", name, b.Steps(), b.Bytes())
		}
	}
}
