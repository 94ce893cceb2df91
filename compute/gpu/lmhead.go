package gpu

import (
	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/shaders"
)

// Logits-row variants of an op (desc.out, recOp.out): the prefill lm head
// is recorded twice, as the matmul over the program's OutMax logits rows
// and as a matvec over the first, and each tape keeps the one that fits
// the step's row count (tapeKey.lmOne, lmNone); a step that wants no
// logits (a prompt chunk before the last) runs neither. The matmul's
// 64-row tile costs the same for 1 row as for 64: a Llama-1B lm head
// (128256×2048 q4_0) took 1.65 ms of a 45 ms pp512 step on the H100,
// where the matvec takes ~0.08 ms.
const (
	outAny  uint8 = iota // in every tape
	outMany              // only in tapes for steps of 2 or more logits rows
	outOne               // only in tapes for steps of exactly one
)

// lmHeadRows adds the one-row matvec beside ds, the matmul of MatMul node
// n over a logits-row tensor x of several rows, writing the same first
// row of dst (binds are the matmul's: weight, x, dst; no bias, residual).
func (c *compiler) lmHeadRows(ds *desc, n *compute.Node, binds []bref) {
	w, x := n.Src[0], n.Src[1]
	if ds == nil || c.err != nil || x.Rows != compute.RowsOut || x.Ne[1] < 2 || n.Src[2] != nil || len(binds) != 3 {
		return
	}
	mv := c.dispatch(shaders.Key{Op: shaders.OpMatvec, Weight: w.Type}, shaders.Shape{N: w.Ne[1]}, false,
		func(*compute.Step) shaders.Params {
			return shaders.MatvecParams{K: u32(w.Ne[0]), N: u32(w.Ne[1])}
		}, binds...)
	if mv == nil {
		return
	}
	ds.out, mv.out = outMany, outOne
}

// inRows reports whether op o belongs to a tape for logits-row variant k.
func (k tapeKey) inRows(o recOp) bool {
	switch o.out {
	case outMany:
		return !k.lmOne && !k.lmNone
	case outOne:
		return k.lmOne
	}
	return true
}
