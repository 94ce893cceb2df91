package webgpu

import (
	"errors"
	"fmt"
)

// ErrDeviceLost is returned (wrapped in a *DeviceLostError) by every call on a
// device that the driver or browser has lost. The engine recovers by opening a
// new Device and re-uploading its buffers; nothing on the old device is usable.
var ErrDeviceLost = errors.New("webgpu: device lost")

// ErrNoAdapter is returned by Open when the system offers no WebGPU adapter
// (no Vulkan driver natively, no navigator.gpu in the browser).
var ErrNoAdapter = errors.New("webgpu: no adapter")

// ErrClosed is returned by calls on a Device after Close.
var ErrClosed = errors.New("webgpu: device closed")

// ErrReadbackFull is returned by Tape.Run when a Readback recorded in the tape
// has every slot waiting to be read: the caller must Read before running again,
// otherwise results would be overwritten before they were seen.
var ErrReadbackFull = errors.New("webgpu: readback ring full")

// ErrReadbackEmpty is returned by Readback.Read when no result is pending.
var ErrReadbackEmpty = errors.New("webgpu: readback ring empty")

// DeviceLostError says why the device was lost. errors.Is(err, ErrDeviceLost) is true.
type DeviceLostError struct {
	Reason  string // "destroyed", "unknown", ... as the backend reports it
	Message string
}

func (e *DeviceLostError) Error() string {
	return fmt.Sprintf("webgpu: device lost (%s): %s", e.Reason, e.Message)
}

// Is makes errors.Is(err, ErrDeviceLost) hold.
func (e *DeviceLostError) Is(target error) bool { return target == ErrDeviceLost }

// CompileError is a WGSL shader that did not compile, or a pipeline that did
// not validate against its layout; Message is the compiler's own text.
type CompileError struct {
	Label   string // pipeline label given by the caller
	Entry   string // entry point
	Message string // the WGSL compiler's (naga / Tint) message
}

func (e *CompileError) Error() string {
	return fmt.Sprintf("webgpu: pipeline %q (entry %q): %s", e.Label, e.Entry, e.Message)
}

// ValidationError is an argument rejected before it reaches the GPU, naming the
// object, the field and the offending value, or a validation error reported
// by the backend's error scope.
type ValidationError struct {
	Op    string // "CreateBindGroup", "WriteBuffer", ...
	Label string // label of the object involved
	Field string // e.g. "bindings[2].Offset"
	Msg   string
}

func (e *ValidationError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("webgpu: %s %q: %s", e.Op, e.Label, e.Msg)
	}
	return fmt.Sprintf("webgpu: %s %q: %s: %s", e.Op, e.Label, e.Field, e.Msg)
}

func invalid(op, label, field, format string, args ...any) error {
	return &ValidationError{Op: op, Label: label, Field: field, Msg: fmt.Sprintf(format, args...)}
}
