//go:build js && wasm

package cpu

import (
	"syscall/js"
	"time"
)

// cpuNow is the CPU time node has used (process.cpuUsage): on the shared
// machine a steadier measure of one kernel's cost than wall time.
func cpuNow() time.Duration {
	u := js.Global().Get("process").Call("cpuUsage")
	return time.Duration(u.Get("user").Float()+u.Get("system").Float()) * time.Microsecond
}
