//go:build js

package webgpu

import (
	"context"
	"fmt"

	"github.com/hack-pad/safejs"
)

// jsErr turns a JS exception or rejection value into a Go error with its message.
func jsErr(v safejs.Value) error {
	if v.Type() == safejs.TypeObject {
		if m, err := v.Get("message"); err == nil && m.Type() == safejs.TypeString {
			s, _ := m.String()
			return fmt.Errorf("%s", s)
		}
	}
	s, _ := v.String()
	return fmt.Errorf("%s", s)
}

type promiseResult struct {
	v   safejs.Value
	err error
}

// await waits for a JS promise. It must not run on the goroutine of a JS
// callback (e.g. an onmessage handler): Go's js/wasm runtime would deadlock,
// because the promise settles only after that callback returns.
func await(ctx context.Context, p safejs.Value) (safejs.Value, error) {
	ch := make(chan promiseResult, 1)
	ok, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		v := safejs.Undefined()
		if len(args) > 0 {
			v = args[0]
		}
		ch <- promiseResult{v: v}
		return nil
	})
	if err != nil {
		return safejs.Value{}, err
	}
	fail, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		e := fmt.Errorf("rejected")
		if len(args) > 0 {
			e = jsErr(args[0])
		}
		ch <- promiseResult{err: e}
		return nil
	})
	if err != nil {
		ok.Release()
		return safejs.Value{}, err
	}
	if _, err := p.Call("then", ok, fail); err != nil {
		ok.Release()
		fail.Release()
		return safejs.Value{}, err
	}
	select {
	case r := <-ch:
		ok.Release()
		fail.Release()
		return r.v, r.err
	case <-ctx.Done():
		// The callbacks stay alive (leaked) so the late settlement does not
		// call a released function.
		return safejs.Value{}, ctx.Err()
	}
}

// call is v.Call with the JS exception turned into an error naming the method.
func call(v safejs.Value, m string, args ...any) (safejs.Value, error) {
	r, err := v.Call(m, args...)
	if err != nil {
		return r, fmt.Errorf("%s: %w", m, err)
	}
	return r, nil
}

func get(v safejs.Value, p string) safejs.Value {
	r, err := v.Get(p)
	if err != nil {
		return safejs.Undefined()
	}
	return r
}

func getUint(v safejs.Value, p string) uint64 {
	f, err := get(v, p).Float()
	if err != nil || f < 0 {
		return 0
	}
	return uint64(f)
}

func getString(v safejs.Value, p string) string {
	x := get(v, p)
	if x.Type() != safejs.TypeString {
		return ""
	}
	s, _ := x.String()
	return s
}
