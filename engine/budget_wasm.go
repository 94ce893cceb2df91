//go:build wasm

package engine

// addressSpace is the Go heap's address space: wasm32 linear memory ends
// at 4 GiB, and Go's wasm port addresses only that (heapAddrBits 32).
const addressSpace = 4 << 30
