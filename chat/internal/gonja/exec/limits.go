package exec

import (
	"math/bits"
	"reflect"
	"strings"

	"github.com/webgguf/webgguf/chat/internal/gonja/parser"
)

// Limits on what one parse or render may build or do (webgguf patch). Chat
// templates come from untrusted model files and run in a browser tab. Go
// cannot recover from a stack overflow or from running out of memory, so
// every recursion and every allocation a template controls is bounded
// before it happens. Real templates stay orders of magnitude below these.
const (
	// MaxStringBytes bounds any one string a template builds (operators,
	// filters, methods, the text of a list or dict).
	MaxStringBytes = 16 << 20
	// MaxListLen bounds any one list or dict a template builds.
	MaxListLen = 1 << 20
	// MaxIntArgument bounds integer arguments of filters and methods
	// (widths, counts), which size what they build.
	MaxIntArgument = 1 << 20
	// MaxLoopIterations bounds the for-loop iterations of one render.
	MaxLoopIterations = 1 << 20
	// MaxNesting bounds nested blocks and brackets (see parser.MaxNesting).
	MaxNesting = parser.MaxNesting
	// MaxExpressionDepth bounds the syntax tree's depth (see
	// parser.MaxExpressionDepth).
	MaxExpressionDepth = parser.MaxExpressionDepth
	// MaxCallDepth bounds nested macro calls and recursive-loop calls
	// (loop(...)) in one render.
	MaxCallDepth = 100
	// MaxValueDepth bounds how deeply lists and dicts nest when a render
	// prints, compares or copies them: a loop can nest a list a million
	// times ({% set ns.l = [ns.l] %}), which would overflow the stack.
	MaxValueDepth = 100
	// MaxValueNodes bounds the elements one print, comparison or copy of a
	// value may visit. Lists that contain a list several times ({% set ns.l
	// = [ns.l, ns.l] %} in a loop) are exponentially large when expanded.
	MaxValueNodes = 1 << 22
	// MaxRenderSteps bounds the work of one render: a step per node
	// rendered, expression evaluated, loop iteration or call, eight per
	// sub-renderer (each loop iteration and block makes one), plus one per
	// list element and per 256 bytes of string an operation walks over.
	// A step is about half a microsecond: a few seconds of work at most.
	// Real templates take under 150 a message (TestRealTemplatesBudget).
	MaxRenderSteps = 1 << 23
	// MaxRenderBytes bounds the bytes of strings and lists one render
	// builds in total, so that what a render keeps alive stays well under
	// a gigabyte and building it stays fast. Real templates build a few
	// times the size of their prompt.
	MaxRenderBytes = 256 << 20
)

// LimitError reports which limit a template exceeded (webgguf patch).
type LimitError = parser.LimitError

// Exceed aborts a parse or render with a *LimitError. It panics: a limit
// may be hit deep inside code that cannot return an error (a value's
// String), and the render must stop rather than go on with a partial
// result. The caller (package chat) recovers it into a typed error.
func Exceed(limit string, got, max int64) {
	panic(&LimitError{Limit: limit, Max: max, Got: got})
}

// CheckString aborts the render if a string of n bytes is too long. Callers
// compute the size before they build the string.
func CheckString(n int) {
	if n > MaxStringBytes || n < 0 {
		Exceed("string bytes", int64(n), MaxStringBytes)
	}
}

// CheckList aborts the render if a list or dict of n elements is too long.
func CheckList(n int) {
	if n > MaxListLen || n < 0 {
		Exceed("list length", int64(n), MaxListLen)
	}
}

// MulSize returns a*b, or a value past every limit when it overflows.
func MulSize(a, b int) int {
	if a < 0 || b < 0 {
		return -1
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > 1<<62 {
		return 1 << 62
	}
	return int(lo)
}

func tooBig(what string, n, limit int) *Value {
	Exceed(what, int64(n), int64(limit))
	return nil
}

// checkIntArgument rejects an integer argument larger than MaxIntArgument.
func checkIntArgument(v *Value) *Value {
	if v.IsInteger() && !v.IsBool() {
		if n := v.Integer(); n > MaxIntArgument || n < -MaxIntArgument {
			return tooBig("integer argument", n, MaxIntArgument)
		}
	}
	return nil
}

// Budget is what one render may still spend (webgguf patch). It is shared
// by every renderer and evaluator of the render; a nil *Budget spends
// nothing and never runs out. Exhausting it aborts the render through
// Exceed. It is not safe for concurrent use: a render runs on one goroutine.
type Budget struct {
	steps, bytes int64
	loops        int
	depth        int
}

// NewBudget returns the budget of one render.
func NewBudget() *Budget { return &Budget{} }

// Step spends n steps of work.
func (b *Budget) Step(n int) {
	if b == nil {
		return
	}
	b.steps += int64(n)
	if b.steps > MaxRenderSteps {
		Exceed("render steps", 0, MaxRenderSteps)
	}
}

// Alloc spends n bytes of what the render builds.
func (b *Budget) Alloc(n int) {
	if b == nil {
		return
	}
	b.bytes += int64(n)
	if b.bytes > MaxRenderBytes {
		Exceed("render bytes", 0, MaxRenderBytes)
	}
}

// String checks and spends a string of n bytes about to be built.
func (b *Budget) String(n int) {
	CheckString(n)
	b.Alloc(n)
}

// List checks and spends a list of n elements about to be built (16 bytes
// an element, a Go interface).
func (b *Budget) List(n int) {
	CheckList(n)
	b.Alloc(16 * n)
}

// Scan spends the steps of walking over v once: one per list or dict
// element, one per 256 bytes of string.
func (b *Budget) Scan(v *Value) {
	if b == nil || v == nil {
		return
	}
	b.Step(1 + workOf(v))
}

// Built spends what building v cost: its bytes, or 16 bytes an element.
func (b *Budget) Built(v *Value) {
	if b == nil || v == nil {
		return
	}
	b.Alloc(sizeOf(v))
}

// Steps and Bytes report what the render has spent so far.
func (b *Budget) Steps() int64 { return b.steps }

// Bytes reports the bytes the render has built so far.
func (b *Budget) Bytes() int64 { return b.bytes }

// enter counts one more nested call (macro or recursive loop) and returns
// the function that leaves it.
func (b *Budget) enter() func() {
	if b == nil {
		return func() {}
	}
	if b.depth >= MaxCallDepth {
		Exceed("call depth", 0, MaxCallDepth)
	}
	b.depth++
	return func() { b.depth-- }
}

// Enter is enter for control structures outside package exec (the
// recursive for loop).
func (b *Budget) Enter() func() { return b.enter() }

// workOf is the steps of walking over v once: one per element of a list
// or dict plus one per 256 bytes of its top-level strings, one per 256
// bytes of a string. Counting the strings matters: a list of a thousand
// references to one 16 MB string is cheap to build but sorting, joining or
// comparing it walks 16 GB.
func workOf(v *Value) int {
	if v == nil || v.IsNil() {
		return 0
	}
	r := v.getResolvedValue()
	switch r.Kind() {
	case reflect.String:
		return len(r.String()) / 256
	case reflect.Slice, reflect.Array:
		n, bytes := r.Len(), 0
		for i := range n {
			e := r.Index(i)
			for e.Kind() == reflect.Interface || e.Kind() == reflect.Pointer {
				if e.IsNil() {
					break
				}
				if val, ok := e.Interface().(*Value); ok {
					e = val.getResolvedValue()
					break
				}
				e = e.Elem()
			}
			if e.Kind() == reflect.String {
				bytes += e.Len()
			}
		}
		return n + bytes/256
	}
	return count(v)
}

// count is the number of elements of a list or dict, without gonja's Len,
// which lists and sorts a map's keys to count them.
func count(v *Value) int {
	r := v.getResolvedValue()
	switch r.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map, reflect.String:
		return r.Len()
	case reflect.Struct:
		if d, ok := r.Interface().(Dict); ok {
			return len(d.Pairs)
		}
	}
	return 0
}

// sizeOf is the bytes v holds at its top level.
func sizeOf(v *Value) int {
	if v == nil || v.IsNil() {
		return 0
	}
	r := v.getResolvedValue()
	if r.Kind() == reflect.String {
		return r.Len()
	}
	return 16 * count(v)
}

// Step counts one loop iteration of the render and aborts it past
// MaxLoopIterations: loops nest, so each range() being bounded is not
// enough. The error result is kept for gonja's callers; it is always nil.
func (r *Renderer) Step() error {
	if r.budget == nil {
		r.budget = NewBudget()
	}
	r.budget.loops++
	if r.budget.loops > MaxLoopIterations {
		Exceed("loop iterations", 0, MaxLoopIterations)
	}
	r.budget.Step(1)
	return nil
}

// Budget returns the render's budget.
func (r *Renderer) Budget() *Budget { return r.budget }

// Capture collects the output of a macro, a {% set %} or {% filter %}
// block, caller() or a recursive loop (webgguf patch). gonja used an
// unbounded builder, so a macro could build any size in memory where the
// render's own output is capped; Capture stops at MaxStringBytes.
type Capture struct {
	sb strings.Builder
}

// Write implements io.Writer.
func (c *Capture) Write(p []byte) (int, error) {
	CheckString(c.sb.Len() + len(p))
	return c.sb.Write(p)
}

// WriteString implements io.StringWriter.
func (c *Capture) WriteString(s string) (int, error) {
	CheckString(c.sb.Len() + len(s))
	return c.sb.WriteString(s)
}

// String returns what was written.
func (c *Capture) String() string { return c.sb.String() }

// Len returns the bytes written.
func (c *Capture) Len() int { return c.sb.Len() }

// Brief is the start of v's text for an error message (webgguf patch):
// messages quoted whole values, megabytes each.
func Brief(v *Value) string {
	s := v.String()
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "…"
	}
	return s
}

// Sort spends the steps of sorting v: n·log₂n comparisons, each walking
// its elements (see Scan).
func (b *Budget) Sort(v *Value) {
	if b == nil || v == nil {
		return
	}
	n := workOf(v)
	b.Step(MulSize(n, bits.Len(uint(count(v)))))
}

// Equal is a == b, spending a step for each element compared.
func (b *Budget) Equal(x, y *Value) bool {
	nodes := 0
	defer func() { b.Step(nodes) }()
	return x.equal(y, 0, &nodes)
}

// Contains is item in seq, spending a step for each element compared and
// for the walk over seq.
func (b *Budget) Contains(seq, item *Value) bool {
	b.Scan(seq)
	nodes := 0
	defer func() { b.Step(nodes) }()
	return seq.contains(item, &nodes)
}
