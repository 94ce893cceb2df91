package gpu

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/webgguf/webgguf/shaders"
)

// MatvecClass names a group of decode matvecs whose workgroup shape
// SetMatvecShape can override: one shape per class, whatever the weight
// format.
type MatvecClass int

const (
	MatvecSwiGLU MatvecClass = iota // the SwiGLU (gate and up) matvec
	MatvecHead                      // a matvec of N >= 32768 rows (the lm head)
	MatvecQKV                       // the fused QKV matvec
	MatvecNarrow                    // any other matvec of N <= 4096 rows (attn_output, ffn_down)
	MatvecWide                      // the remaining matvecs
	numMatvecClasses
)

var matvecClassNames = [numMatvecClasses]string{"swiglu", "head", "qkv", "narrow", "wide"}

// String is the class's name as ParseMatvecShapes reads it.
func (c MatvecClass) String() string {
	if c < 0 || c >= numMatvecClasses {
		return fmt.Sprintf("MatvecClass(%d)", int(c))
	}
	return matvecClassNames[c]
}

// MatvecShape is a matvec workgroup shape (shaders.Key WG, Rows, RPT and
// XU; XU 0 is the kernel's default).
type MatvecShape struct {
	WG, Rows, RPT, XU int
}

// String is the shape as WG:Rows:RPT[:XU].
func (s MatvecShape) String() string {
	if s.XU != 0 {
		return fmt.Sprintf("%d:%d:%d:%d", s.WG, s.Rows, s.RPT, s.XU)
	}
	return fmt.Sprintf("%d:%d:%d", s.WG, s.Rows, s.RPT)
}

// SetMatvecShape makes programs compiled afterwards run class c's matvecs
// with shape s instead of shaders.MatvecTuned's choice, on every adapter
// (tuning end to end: one dispatch timed alone has chosen other shapes
// than the whole token did). A shape
// that the kernel cannot take fails the compile with the shaders.KeyError
// that names it. The zero shape restores the tuned choice.
func (b *Backend) SetMatvecShape(c MatvecClass, s MatvecShape) {
	if c < 0 || c >= numMatvecClasses {
		return
	}
	b.mu.Lock()
	b.mvShape[c] = s
	b.mu.Unlock()
}

// matvecShape applies the override of key's class, reporting whether
// there was one. n is the key's output rows.
func (b *Backend) matvecShape(key *shaders.Key, n int) bool {
	c := MatvecWide
	switch {
	case key.Op == shaders.OpMatvecQKV:
		c = MatvecQKV
	case key.SwiGLU:
		c = MatvecSwiGLU
	case n >= 32768:
		c = MatvecHead
	case n <= 4096:
		c = MatvecNarrow
	}
	b.mu.Lock()
	s := b.mvShape[c]
	b.mu.Unlock()
	if s == (MatvecShape{}) {
		return false
	}
	key.WG, key.Rows, key.RPT, key.XU = s.WG, s.Rows, s.RPT, s.XU
	return true
}

// ParseMatvecShapes reads class=WG:Rows:RPT[:XU] pairs separated by
// commas (e.g. "swiglu=32:2:2,head=32:4:4"), the form of webgguf bench's
// --matvec-shape flag. Classes: swiglu, head, qkv, narrow, wide.
func ParseMatvecShapes(spec string) (map[MatvecClass]MatvecShape, error) {
	out := map[MatvecClass]MatvecShape{}
	if strings.TrimSpace(spec) == "" {
		return out, nil
	}
	for _, item := range strings.Split(spec, ",") {
		name, shape, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return nil, fmt.Errorf("matvec shape %q: want class=WG:Rows:RPT[:XU]", item)
		}
		c := MatvecClass(-1)
		for i, n := range matvecClassNames {
			if n == name {
				c = MatvecClass(i)
			}
		}
		if c < 0 {
			return nil, fmt.Errorf("matvec shape %q: unknown class %q (want %s)", item, name, strings.Join(matvecClassNames[:], ", "))
		}
		parts := strings.Split(shape, ":")
		if len(parts) != 3 && len(parts) != 4 {
			return nil, fmt.Errorf("matvec shape %q: want WG:Rows:RPT[:XU]", item)
		}
		var v [4]int
		for i, p := range parts {
			x, err := strconv.Atoi(p)
			if err != nil || x < 0 || (i < 3 && x == 0) {
				return nil, fmt.Errorf("matvec shape %q: %q is not a positive integer", item, p)
			}
			v[i] = x
		}
		if _, dup := out[c]; dup {
			return nil, fmt.Errorf("matvec shape %q: class %s given twice", item, c)
		}
		out[c] = MatvecShape{WG: v[0], Rows: v[1], RPT: v[2], XU: v[3]}
	}
	return out, nil
}
