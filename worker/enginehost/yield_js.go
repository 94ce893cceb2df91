//go:build js && wasm

package enginehost

import (
	"sync"
	"syscall/js"
	"time"
)

// lostGrace is how long a failed GPU call waits for device.lost to settle
// before it is reported as it failed (see classifyDeviceLost): a destroyed
// device rejects its pending maps a few tasks before.
const lostGrace = 250 * time.Millisecond

// In the browser, Go runs on the worker's one thread and returns to the
// JavaScript event loop only when every goroutine is blocked: a generation
// that computes token after token would never let the worker deliver the
// page's Cancel frame (or anything else) until it ends. yieldToJS blocks
// for one MessageChannel round trip — a task, not a microtask, so message
// events queued before it run first — which lets a cancel land between two
// tokens for a few microseconds per token.
var (
	yieldOnce sync.Once
	yieldMu   sync.Mutex
	yieldPort js.Value
	yieldWake chan struct{}
)

func yieldToJS() {
	yieldOnce.Do(func() {
		mc := js.Global().Get("MessageChannel").New()
		yieldWake = make(chan struct{}, 1)
		mc.Get("port1").Set("onmessage", js.FuncOf(func(js.Value, []js.Value) any {
			select {
			case yieldWake <- struct{}{}:
			default:
			}
			return nil
		}))
		yieldPort = mc.Get("port2")
	})
	yieldMu.Lock()
	defer yieldMu.Unlock()
	yieldPort.Call("postMessage", js.Null())
	<-yieldWake
}
