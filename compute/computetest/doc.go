// Package computetest holds the float64 references and random inputs that
// the tests of more than one compute backend (compute/cpu, compute/gpu)
// share, so that every backend is judged against the same reference. Only
// tests import it.
package computetest
