//go:build js && wasm

package testengine

import (
	"fmt"
	"os"

	"github.com/hack-pad/safejs"
	"github.com/webgguf/webgguf/worker"
)

func crash(mode string) error {
	switch mode {
	case "panic":
		go func() { panic("testengine: crash requested") }() // not recovered: kills the program
	case "exit":
		os.Exit(3)
	case "throw":
		// JSON.parse("{") throws from a timer task: an uncaught exception in the worker.
		parse, err := safejs.Global().Get("JSON")
		if err == nil {
			parse, err = parse.Get("parse")
		}
		if err == nil {
			_, err = safejs.Global().Call("setTimeout", parse, 0, "{")
		}
		return err
	default:
		return worker.NewError("bad_request", "unknown crash mode", fmt.Errorf("mode %q is not panic, exit or throw", mode))
	}
	return nil
}
