package exec

import "fmt"

// Limits on what one render may build (webgguf patch). Chat templates come
// from untrusted model files and run in a browser tab: doubling a string in
// a loop, 'x' * 10**9 or center(10**9) must fail fast instead of taking
// gigabytes. Real templates stay orders of magnitude below these.
const (
	// MaxStringBytes bounds a string built by +, ~ or *.
	MaxStringBytes = 16 << 20
	// MaxListLen bounds a list built by +.
	MaxListLen = 1 << 20
	// MaxIntArgument bounds integer arguments of filters and methods
	// (widths, counts), which size what they build.
	MaxIntArgument = 1 << 20
	// MaxLoopIterations bounds the for-loop iterations of one render.
	MaxLoopIterations = 1 << 20
)

func tooBig(what string, n, limit int) *Value {
	return AsValue(fmt.Errorf("%s of %d exceeds the limit of %d", what, n, limit))
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

// Step counts one loop iteration of the render and fails past
// MaxLoopIterations: loops nest, so each range() being bounded is not enough.
func (r *Renderer) Step() error {
	if r.steps == nil {
		r.steps = new(int)
	}
	*r.steps++
	if *r.steps > MaxLoopIterations {
		return fmt.Errorf("more than %d loop iterations", MaxLoopIterations)
	}
	return nil
}
