//go:build !js

package webgpu

// The map callback through our own C call (wg_map_async in cwgpu_native.go).
// cogentcore v0.23.0's Buffer.MapAsync passes C the address of a Go
// cgo.Handle that nothing keeps alive: once a collection frees it, the
// callback reads garbage and panics ("misuse of cgo.Handle"). Here the
// handle's value itself is the C userdata, and only the callback deletes
// it, so it lives exactly until the callback has fired. A map whose
// callback never fires (device gone) leaks one handle table entry, which is
// harmless; deleting it early would not be.
//
// This file holds the //export, so its preamble may only declare.

/*
#include <stdint.h>
*/
import "C"

import (
	"runtime/cgo"

	"github.com/cogentcore/webgpu/wgpu"
)

//export webgguf_map_done
func webgguf_map_done(status C.uint32_t, h C.uintptr_t) {
	hd := cgo.Handle(h)
	f := hd.Value().(func(wgpu.BufferMapAsyncStatus))
	hd.Delete()
	f(wgpu.BufferMapAsyncStatus(status))
}
