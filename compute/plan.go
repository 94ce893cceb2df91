package compute

import "sort"

// planAlign is the arena alignment in f32 elements: 256 bytes, WebGPU's
// minStorageBufferOffsetAlignment, so the GPU backend can bind sub-ranges.
const planAlign = 64

// plan assigns every activation an Offset in one arena, reusing the space
// of tensors whose last reader has run (first fit over freed blocks). A
// node's output never shares memory with its own sources.
func (g *Graph) plan() {
	last := make(map[*Tensor]int)
	for i, n := range g.Nodes {
		for _, s := range n.Src {
			if isAct(s) {
				last[s] = i
			}
		}
	}
	if g.Logits != nil {
		last[g.Logits] = len(g.Nodes)
	}
	var free []block // sorted by offset, coalesced
	end := 0
	for i, n := range g.Nodes {
		if d := n.Dst; d != nil {
			size := (d.Elems() + planAlign - 1) / planAlign * planAlign
			d.Offset = -1
			for j, b := range free {
				if b.size >= size {
					d.Offset = b.off
					free[j] = block{b.off + size, b.size - size}
					if free[j].size == 0 {
						free = append(free[:j], free[j+1:]...)
					}
					break
				}
			}
			if d.Offset < 0 {
				d.Offset = end
				end += size
			}
			if _, used := last[d]; !used {
				last[d] = i // never read: free right away
			}
		}
		for t, l := range last {
			if l == i {
				size := (t.Elems() + planAlign - 1) / planAlign * planAlign
				free = release(free, block{t.Offset, size})
				delete(last, t)
			}
		}
	}
	g.ArenaSize = end
}

type block struct{ off, size int }

func release(free []block, b block) []block {
	free = append(free, b)
	sort.Slice(free, func(i, j int) bool { return free[i].off < free[j].off })
	out := free[:1]
	for _, x := range free[1:] {
		p := &out[len(out)-1]
		if p.off+p.size == x.off {
			p.size += x.size
		} else {
			out = append(out, x)
		}
	}
	return out
}
