package model

import "fmt"

// UnknownArchError is returned for an architecture no model registered.
type UnknownArchError struct{ Arch string }

// Error formats the UnknownArchError.
func (e *UnknownArchError) Error() string {
	return fmt.Sprintf("model: unknown architecture %q (supported: %v)", e.Arch, Architectures())
}

// KeyError reports a missing or unusable metadata key.
type KeyError struct {
	Key    string
	Reason string
}

// Error formats the KeyError.
func (e *KeyError) Error() string { return fmt.Sprintf("model: key %s: %s", e.Key, e.Reason) }

// MissingTensorError reports a required tensor absent from the file.
type MissingTensorError struct{ Name string }

// Error formats the MissingTensorError.
func (e *MissingTensorError) Error() string { return fmt.Sprintf("model: missing tensor %s", e.Name) }

// ShapeError reports a tensor whose shape does not match the
// hyperparameters.
type ShapeError struct {
	Name string
	Got  []uint64
	Want []int
}

// Error formats the ShapeError.
func (e *ShapeError) Error() string {
	return fmt.Sprintf("model: tensor %s has shape %v, want %v", e.Name, e.Got, e.Want)
}

// FusionError reports a fusion an architecture declares wrongly.
type FusionError struct {
	Name   string // the fused tensor
	Reason string
}

// Error formats the FusionError.
func (e *FusionError) Error() string {
	return fmt.Sprintf("model: fused tensor %s: %s", e.Name, e.Reason)
}

// UnsupportedError reports a tensor of a layout the architecture knows but
// does not implement.
type UnsupportedError struct {
	Name   string
	Reason string
}

// Error formats the UnsupportedError.
func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("model: tensor %s: %s", e.Name, e.Reason)
}
