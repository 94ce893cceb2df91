//go:build !long

package longtest

// Enabled is true when the tests were built with the long tag.
const Enabled = false
