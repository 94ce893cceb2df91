//go:build js

package opfs

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"syscall/js"

	"github.com/hack-pad/safejs"
)

// jsError is a JavaScript exception or rejection: Name is the DOMException
// name ("QuotaExceededError", "NotFoundError", ...), Message its text.
type jsError struct {
	Name    string
	Message string
}

func (e *jsError) Error() string {
	if e.Name != "" {
		return e.Name + ": " + e.Message
	}
	return e.Message
}

func toJSError(v safejs.Value) error {
	e := &jsError{}
	if v.Type() == safejs.TypeObject {
		e.Name = str(v, "name")
		e.Message = str(v, "message")
	}
	if e.Message == "" && e.Name == "" {
		s, _ := v.String()
		e.Message = s
	}
	return e
}

// kindOf maps a DOMException name onto an error kind.
func kindOf(err error, fallback string) string {
	var je *jsError
	if errors.As(err, &je) {
		switch je.Name {
		case "QuotaExceededError":
			return KindQuota
		case "NotFoundError":
			return KindNotFound
		case "NoModificationAllowedError", "InvalidStateError":
			return KindBusy
		}
	}
	return fallback
}

// wrap turns a JS failure into a typed Error of the kind its DOMException
// name implies (fallback otherwise); context errors pass through untyped so
// the worker reports them as "canceled".
func wrap(err error, fallback, op, key, msg string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var oe *Error
	if errors.As(err, &oe) {
		return err
	}
	return newErr(kindOf(err, fallback), op, key, msg, err)
}

type settled struct {
	v   safejs.Value
	err error
}

// await waits for a JS promise on a goroutine that is not inside a JS
// callback (Go's js runtime would deadlock otherwise).
func await(ctx context.Context, p safejs.Value) (safejs.Value, error) {
	ch := make(chan settled, 1)
	ok, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		v := safejs.Undefined()
		if len(args) > 0 {
			v = args[0]
		}
		ch <- settled{v: v}
		return nil
	})
	if err != nil {
		return safejs.Value{}, err
	}
	fail, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		e := error(&jsError{Message: "rejected"})
		if len(args) > 0 {
			e = toJSError(args[0])
		}
		ch <- settled{err: e}
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
		// The callbacks stay alive so a late settlement finds them.
		return safejs.Value{}, ctx.Err()
	}
}

// callAwait calls method m of v and awaits the promise it returns.
func callAwait(ctx context.Context, v safejs.Value, m string, args ...any) (safejs.Value, error) {
	p, err := v.Call(m, args...)
	if err != nil {
		return safejs.Value{}, jsCallErr(m, err)
	}
	return await(ctx, p)
}

// jsCallErr keeps a thrown DOMException's name (safejs wraps it).
func jsCallErr(m string, err error) error {
	var je js.Error
	if errors.As(err, &je) {
		return fmt.Errorf("%s: %w", m, toJSError(safejs.Safe(je.Value)))
	}
	return fmt.Errorf("%s: %w", m, &jsError{Message: err.Error()})
}

func get(v safejs.Value, p string) safejs.Value {
	r, err := v.Get(p)
	if err != nil {
		return safejs.Undefined()
	}
	return r
}

func str(v safejs.Value, p string) string {
	x := get(v, p)
	if x.Type() != safejs.TypeString {
		return ""
	}
	s, _ := x.String()
	return s
}

func num(v safejs.Value, p string) float64 {
	x := get(v, p)
	if x.Type() != safejs.TypeNumber {
		return -1
	}
	f, _ := x.Float()
	return f
}

func global(name string) safejs.Value { return get(safejs.Global(), name) }

// object returns a new JS object with the given properties.
func object(kv ...any) safejs.Value {
	o, _ := global("Object").New()
	for i := 0; i+1 < len(kv); i += 2 {
		_ = o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

// newBytes returns a new JS Uint8Array of n bytes.
func newBytes(n int) (safejs.Value, error) {
	return global("Uint8Array").New(n)
}

func newErr(kind, op, key, msg string, cause error) *Error {
	return &Error{Kind: kind, Op: op, Key: key, Offset: -1, Msg: msg, Err: cause}
}

// gcEvery is how many bytes of fresh JS chunks (fetch body pieces) may pass
// through Go between releaseJS calls.
const gcEvery = 32 << 20

// releaseJS runs Go's collector so the js.Values Go no longer holds are
// finalized and dropped from wasm_exec.js's table: until then each one
// keeps its JS object, and a fetch body chunk's ArrayBuffer, alive. With
// Go's heap barely growing during a download the collector would otherwise
// not run, and a whole model's worth of chunks stayed reachable (measured:
// 1.09 GiB of ArrayBuffers in the worker while downloading a 1.04 GiB model).
func releaseJS() { runtime.GC() }
