package engine

import (
	"fmt"

	"github.com/webgguf/webgguf/compute"
)

// keyShift is how a context shift treats one layer's K cache: the RoPE its
// keys were stored with (nil: stored unrotated, moved as they are), or why
// they cannot be shifted.
type keyShift struct {
	k, v  *compute.Tensor
	rope  *compute.RopeParams
	freqs *compute.Tensor
	why   string // not "": this layer's keys cannot be re-rotated
}

// keyShifts reads from a forward graph, for every KVWrite, whether the keys
// it stores come straight out of a Rope node (re-rotated by a shift, with
// that node's parameters and frequency factors), out of nodes with no Rope
// behind them (a NoPE layer: rotated as llama.cpp does, see below), or out
// of a Rope followed by other ops (no exact shift exists; refused).
func keyShifts(g *compute.Graph) []keyShift {
	producer := map[*compute.Tensor]*compute.Node{}
	for _, n := range g.Nodes {
		if n.Dst != nil {
			producer[n.Dst] = n
		}
	}
	var out []keyShift
	seen := map[*compute.Tensor]bool{}
	for _, n := range g.Nodes {
		if n.Op != compute.OpKVWrite || seen[n.Src[2]] {
			continue // a cache written twice is moved once
		}
		seen[n.Src[2]] = true
		ks := keyShift{k: n.Src[2], v: n.Src[3]}
		if p := producer[n.Src[0]]; p != nil && p.Op == compute.OpRope {
			r := p.Rope
			if r.Mscale() != 1 {
				// LongRoPE (phi3 past its original context): llama.cpp's
				// shifted logits were not reproduced, with or without the
				// factor applied again, so no shift is offered.
				ks.why = fmt.Sprintf("its keys are LongRoPE-scaled (attention factor %g)", r.Mscale())
			}
			ks.rope, ks.freqs = &r, p.Src[1]
		} else if ropeBehind(producer, n.Src[0]) {
			ks.why = "its keys pass through other ops after RoPE"
		}
		out = append(out, ks)
	}
	// llama.cpp's K-shift rotates every layer's keys with the model's RoPE,
	// a layer without RoPE (smollm3's every fourth) too, which makes its
	// keys differ from what it stored; this follows llama.cpp, whose
	// outputs after a shift are the reference (measured: logits within the
	// two implementations' noise only so).
	var first *keyShift
	for i := range out {
		if out[i].rope != nil {
			first = &out[i]
			break
		}
	}
	for i := range out {
		if out[i].rope == nil && out[i].why == "" && first != nil {
			out[i].rope, out[i].freqs = first.rope, first.freqs
		}
	}
	return out
}

// ropeBehind reports whether a Rope node is among the ancestors of t up
// to the projection (MatMul) that made it.
func ropeBehind(producer map[*compute.Tensor]*compute.Node, t *compute.Tensor) bool {
	seen := map[*compute.Tensor]bool{}
	stack := []*compute.Tensor{t}
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := producer[t]
		if n == nil || seen[t] {
			continue
		}
		seen[t] = true
		switch n.Op {
		case compute.OpRope:
			return true
		case compute.OpMatMul, compute.OpAttention, compute.OpGetRows:
			continue // a fresh projection: what came before is not its RoPE
		}
		for _, s := range n.Src {
			if s != nil {
				stack = append(stack, s)
			}
		}
	}
	return false
}

// CanShift reports whether Shift works on this engine: nil, or a
// *ShiftError saying why not (a backend without compute.CacheShifter, a
// sliding-window ring cache, keys that are not plainly RoPE'd).
func (e *Engine) CanShift() error {
	if _, ok := e.be.(compute.CacheShifter); !ok {
		return &ShiftError{Reason: "the " + e.be.Name() + " backend cannot shift its KV cache"}
	}
	for il, ks := range e.shifts {
		if ks.k.Ring || ks.v.Ring {
			// llama.cpp cannot either: a ring has overwritten the keys a
			// query after the shift would still see inside its window.
			return &ShiftError{Reason: fmt.Sprintf("layer %d keeps a sliding-window ring cache", il)}
		}
		if ks.why != "" {
			return &ShiftError{Reason: fmt.Sprintf("layer %d: %s", il, ks.why)}
		}
	}
	return nil
}

// Shift drops the n positions that follow the first keep and moves the
// positions after them down by n, their keys re-rotated by RoPE to their
// new positions: llama.cpp's context shift (llama_memory_seq_rm of
// keep..keep+n, then llama_memory_seq_add of −n to keep+n..Pos). The kept
// entries' keys and values are not recomputed, so what follows attends to
// them as llama.cpp's shifted cache does. Pos shrinks by n. Engines where
// CanShift fails return its *ShiftError with the cache unchanged.
func (e *Engine) Shift(keep, n int) error {
	if keep < 0 || n <= 0 || keep+n > e.pos {
		return &OptionError{"shift", fmt.Sprintf("keep %d, discard %d: outside the %d positions held", keep, n, e.pos)}
	}
	if err := e.CanShift(); err != nil {
		return err
	}
	sh := e.be.(compute.CacheShifter)
	rows := e.pos - keep - n
	if rows > 0 {
		for _, ks := range e.shifts {
			if err := sh.ShiftCache(ks.k, keep+n, keep, rows, ks.rope, ks.freqs); err != nil {
				e.Reset() // part of the cache moved: nothing in it is trustworthy
				return err
			}
			if err := sh.ShiftCache(ks.v, keep+n, keep, rows, nil, nil); err != nil {
				e.Reset()
				return err
			}
		}
	}
	e.pos -= n
	e.written = e.pos
	return nil
}
