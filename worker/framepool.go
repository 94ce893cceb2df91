package worker

import (
	"math/bits"
	"sync"
)

// framePool reuses incoming frame buffers by power-of-two size class, so a
// steady stream of 1 MiB chunks does not grow the wasm heap (wasm memory
// never shrinks) or run the GC for every frame.
type framePool struct {
	classes [32]sync.Pool
}

const minFrameClass = 10 // 1 KiB

func sizeClass(n int) int {
	if n <= 1<<minFrameClass {
		return minFrameClass
	}
	return bits.Len(uint(n - 1))
}

func (p *framePool) get(n int) []byte {
	c := sizeClass(n)
	if c >= len(p.classes) {
		return make([]byte, n)
	}
	if b, ok := p.classes[c].Get().(*[]byte); ok {
		return (*b)[:n]
	}
	return make([]byte, n, 1<<c)
}

func (p *framePool) put(b []byte) {
	c := bits.Len(uint(cap(b))) - 1
	if cap(b) != 1<<c || c < minFrameClass || c >= len(p.classes) {
		return // not one of ours
	}
	b = b[:0]
	p.classes[c].Put(&b)
}
