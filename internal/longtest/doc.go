// Package longtest tells tests whether they run in the long suite.
//
// The default `make test` (and a plain `go test ./...`) runs each kernel
// variant, model family and browser path at least once; the exhaustive
// sweeps (every variant on every shape, duplicate fixtures, repeated
// browser runs) run only when built with the `long` tag, as
// `make test-long` does. Tests add their extra cases when Enabled is true,
// so nothing in the default run is skipped: it simply has fewer cases.
package longtest
