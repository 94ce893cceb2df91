package gpu

import (
	"fmt"
	"sort"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/webgpu"
)

// layoutActivations gives every activation a buffer of its own for its
// lifetime, reusing the buffers of tensors whose last reader has run.
//
// The graph's own arena plan (one buffer, sub-ranges) cannot be used as is:
// WebGPU tracks usage per buffer, not per range, so a dispatch may not read
// one range of a buffer and write another. With a buffer per live tensor a
// node's sources and destination are always different buffers. The logits
// get a dedicated buffer, padded to whole readback chunks.
func (c *compiler) layoutActivations() {
	p, g := c.p, c.p.g
	last := map[*compute.Tensor]int{}
	for i, n := range g.Nodes {
		for _, s := range n.Src {
			if s != nil && s.Kind == compute.Activation {
				last[s] = i
			}
		}
	}
	usage := webgpu.UsageStorage | webgpu.UsageCopySrc | webgpu.UsageCopyDst
	var free []*webgpu.Buffer // sorted by size
	p.acts = map[*compute.Tensor]*webgpu.Buffer{}
	for i, n := range g.Nodes {
		d := n.Dst
		if d != nil {
			size := pad16(uint64(d.Elems()) * 4)
			if d == g.Logits {
				size = (size + p.chunk - 1) / p.chunk * p.chunk
				p.acts[d] = c.buffer("logits", size, usage)
			} else {
				j := sort.Search(len(free), func(j int) bool { return free[j].Size() >= size })
				if j < len(free) {
					p.acts[d] = free[j]
					free = append(free[:j], free[j+1:]...)
				} else {
					p.acts[d] = c.buffer(fmt.Sprintf("act%d", len(p.bufs)), size, usage)
				}
			}
			if c.err != nil {
				return
			}
			if _, used := last[d]; !used && d != g.Logits {
				last[d] = i
			}
		}
		for t, l := range last {
			if l == i && t != g.Logits {
				free = append(free, p.acts[t])
				sort.Slice(free, func(a, b int) bool { return free[a].Size() < free[b].Size() })
				delete(last, t)
			}
		}
	}
}
