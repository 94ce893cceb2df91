//go:build js && wasm

package worker

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/hack-pad/safejs"
)

// jsTransport posts frames to the page through the bootstrap's
// webggufWorker.send: JS copies the frame straight out of wasm memory into a
// pooled buffer that is then transferred (not cloned).
type jsTransport struct {
	send safejs.Value
}

// Send hands the frame's address in linear memory to JS, which copies it
// synchronously: Go's heap does not move, and frame stays alive for the call.
func (t *jsTransport) Send(frame []byte) error {
	if len(frame) == 0 {
		return nil
	}
	ptr := uintptr(unsafe.Pointer(unsafe.SliceData(frame)))
	_, err := t.send.Invoke(ptr, len(frame))
	runtime.KeepAlive(frame)
	if err != nil {
		return fmt.Errorf("worker: send frame: %w", err)
	}
	return nil
}

// Run serves DefaultMux to the page until the program exits. It must be
// called from main on GOOS=js inside the bootstrap worker.js; it returns only
// on a setup error.
func Run(engine string) error {
	api, err := safejs.Global().Get("webggufWorker")
	if err != nil || api.IsUndefined() {
		return fmt.Errorf("worker: globalThis.webggufWorker is missing: run the engine through worker.js (%v)", err)
	}
	send, err := api.Get("send")
	if err != nil || send.Type() != safejs.TypeFunction {
		return fmt.Errorf("worker: webggufWorker has no send function (%v)", err)
	}
	srv := NewServer(DefaultMux, &jsTransport{send: send}, engine)
	running.Store(srv)
	deliver, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		// Only copy, decode and dispatch here: this runs inside a JS
		// callback, where awaiting a promise would deadlock Go's runtime.
		if len(args) != 2 {
			return nil
		}
		n, err := args[1].Int() // numbers cross without a JS call
		if err != nil || n < 0 {
			srv.sendError(0, NewError("protocol", "frame length is not a number", err))
			return nil
		}
		b := srv.Buffer(n)
		if _, err := safejs.CopyBytesToGo(b, args[0]); err != nil {
			srv.sendError(0, NewError("protocol", "frame is not a Uint8Array", err))
			return nil
		}
		srv.Deliver(b)
		return nil
	})
	if err != nil {
		return err
	}
	if _, err := api.Call("ready", deliver.Value()); err != nil {
		return fmt.Errorf("worker: ready: %w", err)
	}
	select {} // serve callbacks forever
}
