// Package worker is the engine's request loop inside the Web Worker; its JavaScript bootstrap lives beside it.
package worker
