//go:build js && wasm

package worker

import (
	"fmt"

	"github.com/hack-pad/safejs"
)

// jsTransport posts frames to the page through the bootstrap's
// webggufWorker.take/post: the frame is copied once, into a pooled JS buffer
// that is then transferred (not cloned).
type jsTransport struct {
	take, post safejs.Value
}

// Send copies frame into a pooled ArrayBuffer and transfers it to the page.
func (t *jsTransport) Send(frame []byte) error {
	u8, err := t.take.Invoke(len(frame))
	if err != nil {
		return fmt.Errorf("worker: take buffer: %w", err)
	}
	if _, err := safejs.CopyBytesToJS(u8, frame); err != nil {
		return fmt.Errorf("worker: copy frame: %w", err)
	}
	if _, err := t.post.Invoke(u8); err != nil {
		return fmt.Errorf("worker: post frame: %w", err)
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
	take, err1 := api.Get("take")
	post, err2 := api.Get("post")
	if err1 != nil || err2 != nil {
		return fmt.Errorf("worker: webggufWorker has no take/post")
	}
	srv := NewServer(DefaultMux, &jsTransport{take: take, post: post}, engine)
	deliver, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		// Only copy, decode and dispatch here: this runs inside a JS
		// callback, where awaiting a promise would deadlock Go's runtime.
		if len(args) != 1 {
			return nil
		}
		n, err := args[0].Length()
		if err != nil {
			srv.sendError(0, NewError("protocol", "frame is not a Uint8Array", err))
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
