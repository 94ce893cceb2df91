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
	f := c.fuse
	// A node absorbed by a fusion runs at its absorber's position: its
	// sources live until then, and its own output is never stored.
	idx := map[*compute.Node]int{}
	for i, n := range g.Nodes {
		idx[n] = i
	}
	at := func(n *compute.Node) int {
		if by, ok := f.by[n]; ok {
			return idx[by]
		}
		if l, ok := f.lead[n]; ok {
			return idx[l]
		}
		return idx[n]
	}
	members := map[*compute.Node][]*compute.Node{}
	for m, l := range f.lead {
		members[l] = append(members[l], m)
	}
	absorbed := map[*compute.Tensor]bool{}
	for n := range f.by {
		if !f.keep[n.Dst] { // a moved post-norm add's output is stored by its kernel
			absorbed[n.Dst] = true
		}
	}
	last := map[*compute.Tensor]int{}
	for _, n := range g.Nodes {
		for _, s := range n.Src {
			if s != nil && s.Kind == compute.Activation && !absorbed[s] {
				last[s] = max(last[s], at(n))
			}
		}
	}
	usage := webgpu.UsageStorage | webgpu.UsageCopySrc | webgpu.UsageCopyDst
	var free []*webgpu.Buffer // sorted by size
	p.acts = map[*compute.Tensor]*webgpu.Buffer{}
	alloc := func(i int, n *compute.Node, d *compute.Tensor) {
		size := pad16(uint64(d.Elems()) * 4)
		x := n.Src[0]
		if rn, ok := f.ropeNorm[n]; ok {
			x = rn[0].Src[0] // rope_kv norms q's heads in place: the norm's input is its source
		}
		switch {
		case d == g.Logits:
			size = (size + p.chunk - 1) / p.chunk * p.chunk
			p.acts[d] = c.buffer("logits", size, usage)
		case n.Op == compute.OpRope && last[x] == i && x != g.Logits && x.Elems() == d.Elems():
			// RoPE rotates in place: the destination takes over the
			// dying source's buffer.
			p.acts[d] = p.acts[x]
			delete(last, x)
		default:
			j := sort.Search(len(free), func(j int) bool { return free[j].Size() >= size })
			if j < len(free) {
				p.acts[d] = free[j]
				free = append(free[:j], free[j+1:]...)
			} else {
				p.acts[d] = c.buffer(fmt.Sprintf("act%d", len(p.bufs)), size, usage)
			}
		}
		if _, used := last[d]; !used && d != g.Logits {
			last[d] = i
		}
	}
	for i, n := range g.Nodes {
		if f.lead[n] == nil {
			for _, m := range append([]*compute.Node{n}, members[n]...) {
				if m.Dst != nil && !absorbed[m.Dst] {
					alloc(i, m, m.Dst)
				}
			}
			if c.err != nil {
				return
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
