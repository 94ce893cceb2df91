//go:build !wasm

package engine

// addressSpace is 0 natively: a 64-bit address space bounds no plan.
const addressSpace = 0
