package cpu

import (
	"context"
	"fmt"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
)

// program is a compiled graph: storage resolved, scratch preallocated, so
// Run allocates nothing.
type program struct {
	b     *Backend
	g     *compute.Graph
	arena []float32
	// nCtx bounds the positions of a step (compute.CheckStep): the length
	// of the longest ordinary cache, or 1<<30 if every cache is a ring.
	// Each cache is indexed modulo its own length.
	nCtx   int
	nVocab int
	// per-worker scratch: a dequantized weight row and attention scores
	// (two heads' of the longest cache, attnHead2)
	rowBuf [][]float32
	scores [][]float32
	// xsum holds per-16 sums of the token rows for the fused kernels.
	xsum []float32
	// xq and xd hold the token rows packed for the quantized-activation
	// kernels (dotq_xq.go) and their per-32 scales, where useXQ.
	xq []uint64
	xd []float32
	// x16, x16s and x16u hold the token rows packed for the 16-bit q6_K
	// kernel (dotq_x16.go), their per-256 scales and per-16 sums.
	x16  []uint64
	x16s []float32
	x16u []int32
	// argmaxRow receives the single logits row of RunArgmax.
	argmaxRow []float32
	// small holds 1-D weights (norm scales, biases) dequantized once.
	small map[*compute.Tensor][]float32
}

// Compile resolves g's weights and caches, which must be loaded/allocated,
// and allocates the activation arena laid out by g's plan.
func (b *Backend) Compile(g *compute.Graph) (compute.Program, error) {
	if err := g.Err(); err != nil {
		return nil, err
	}
	if g.Logits == nil {
		return nil, fmt.Errorf("cpu: graph has no logits (SetLogits not called)")
	}
	p := &program{b: b, g: g, arena: make([]float32, g.ArenaSize), nVocab: g.Logits.Ne[0], nCtx: -1, small: map[*compute.Tensor][]float32{}}
	maxK, maxCache := 1, 0
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, n := range g.Nodes {
		switch n.Op {
		case compute.OpGetRows, compute.OpPosRows, compute.OpSelectRows, compute.OpRMSNorm, compute.OpMatMul, compute.OpRope,
			compute.OpAdd, compute.OpMul, compute.OpScale, compute.OpSoftcap, compute.OpLayerNorm:
		case compute.OpGLU, compute.OpAct:
			if n.Act != compute.ActSiLU && n.Act != compute.ActGELU {
				return nil, fmt.Errorf("cpu: %s: activation %s not supported", n.Op, n.Act)
			}
		case compute.OpKVWrite, compute.OpAttention:
			// Both caches hold position p in slot p mod their length:
			// attention reads K and V rows by the same slots.
			kc, vc := n.Src[len(n.Src)-2], n.Src[len(n.Src)-1]
			if kc.Ne[1] != vc.Ne[1] {
				return nil, fmt.Errorf("cpu: %s: K and V caches %s, %s differ in length", n.Op, kc.Name, vc.Name)
			}
		default:
			return nil, fmt.Errorf("cpu: op %s not supported", n.Op)
		}
		for _, s := range n.Src {
			switch {
			case s == nil:
			case s.Kind == compute.Weight:
				if _, ok := b.weights[s]; !ok {
					return nil, fmt.Errorf("cpu: %s uses weight %s that was not loaded", n.Op, s.Name)
				}
				maxK = max(maxK, s.Ne[0])
				if s.Ne[1] == 1 {
					f, err := gguf.Dequantize(s.Type, b.weights[s], s.Ne[0])
					if err != nil {
						return nil, fmt.Errorf("cpu: weight %s: %w", s.Name, err)
					}
					p.small[s] = f
				}
			case s.Kind == compute.Cache:
				if _, ok := b.caches[s]; !ok {
					return nil, fmt.Errorf("cpu: %s uses cache %s that was not allocated", n.Op, s.Name)
				}
				maxCache = max(maxCache, s.Ne[1])
				if !s.Ring {
					p.nCtx = max(p.nCtx, s.Ne[1])
				}
			}
		}
	}
	if p.nCtx < 0 {
		// Only rings (or no cache): positions are bounded by nothing but
		// int overflow.
		p.nCtx = 1 << 30
	}
	p.rowBuf = make([][]float32, b.threads)
	p.scores = make([][]float32, b.threads)
	for w := range b.threads {
		p.rowBuf[w] = make([]float32, 2*maxK)
		p.scores[w] = make([]float32, 2*maxCache) // two heads' (attnHead2)
	}
	p.xsum = make([]float32, fusedMaxRows*(maxK/16+1))
	p.argmaxRow = make([]float32, p.nVocab)
	if useXQ {
		// Prefill quantizes every token row of a q4_K product too
		// (matMulXQ4).
		xqRows := max(fusedMaxRows, g.B)
		p.xsum = make([]float32, xqRows*(maxK/16+1))
		p.xq = make([]uint64, xqRows*xqWords(maxK))
		p.xd = make([]float32, xqRows*(maxK/32+1))
		p.x16 = make([]uint64, fusedMaxRows*x16Words(maxK))
		p.x16s = make([]float32, fusedMaxRows*(maxK/256+1))
		p.x16u = make([]int32, fusedMaxRows*(maxK/16+1))
	}
	b.mem += int64(len(p.arena)+len(p.xsum)+len(p.xd)+2*len(p.xq)+2*len(p.x16)+len(p.x16s)+len(p.x16u)+len(p.argmaxRow)+b.threads*(2*maxK+2*maxCache)) * 4
	return p, nil
}

// act returns the valid rows of activation t in the arena.
func (p *program) act(t *compute.Tensor, rows int) []float32 {
	return p.arena[t.Offset : t.Offset+t.Ne[0]*rows]
}

func rowsOf(t *compute.Tensor, s compute.Step) int {
	switch t.Rows {
	case compute.RowsTokens:
		return len(s.Tokens)
	case compute.RowsOut:
		return len(s.OutRows)
	}
	return t.Ne[1]
}

// RunArgmax executes a step with one output row and returns its argmax.
func (p *program) RunArgmax(ctx context.Context, s compute.Step) (int32, error) {
	if len(s.OutRows) != 1 {
		return -1, fmt.Errorf("%w: RunArgmax needs exactly one output row, got %d", compute.ErrBadStep, len(s.OutRows))
	}
	if err := p.Run(ctx, s, p.argmaxRow); err != nil {
		return -1, err
	}
	best := 0
	for i, v := range p.argmaxRow {
		if v > p.argmaxRow[best] {
			best = i
		}
	}
	return int32(best), nil
}

// Run executes the graph for one step.
func (p *program) Run(ctx context.Context, s compute.Step, logits []float32) error {
	if err := compute.CheckStep(p.g, s, p.nCtx, p.nVocab, logits); err != nil {
		return err
	}
	for _, n := range p.g.Nodes {
		if err := ctx.Err(); err != nil {
			return err
		}
		p.exec(n, s)
	}
	nOut := len(s.OutRows)
	copy(logits[:nOut*p.nVocab], p.act(p.g.Logits, nOut))
	return nil
}

func (p *program) exec(n *compute.Node, s compute.Step) {
	b := p.b
	var dst []float32
	rows := 0
	if n.Dst != nil {
		rows = rowsOf(n.Dst, s)
		dst = p.act(n.Dst, rows)
	}
	switch n.Op {
	case compute.OpGetRows:
		w := n.Src[0]
		getRows(dst, w.Type, b.weights[w], w.Ne[0], s.Tokens)
	case compute.OpPosRows:
		w := n.Src[0]
		pos0, step := s.Pos0, 1
		if n.Row0 {
			pos0, step = 0, 0
		}
		posRows(dst, w.Type, b.weights[w], w.Ne[0], pos0, step, rows)
	case compute.OpSelectRows:
		x := n.Src[0]
		selectRows(dst, p.act(x, rowsOf(x, s)), x.Ne[0], s.OutRows)
	case compute.OpRMSNorm:
		var w []float32
		if n.Src[1] != nil {
			w = p.f32Weight(n.Src[1])
		}
		rmsNorm(dst, p.act(n.Src[0], rows), w, n.Group, n.Eps)
	case compute.OpMatMul:
		w, x := n.Src[0], n.Src[1]
		var bias []float32
		if n.Src[2] != nil {
			bias = p.f32Weight(n.Src[2])
		}
		p.matMul(dst, w, p.act(x, rows), rows, bias)
	case compute.OpRope:
		var freqs []float32
		if n.Src[1] != nil {
			freqs = p.f32Weight(n.Src[1])
		}
		rope(dst, p.act(n.Src[0], rows), n.Rope, freqs, s.Pos0)
	case compute.OpKVWrite:
		k, v := n.Src[0], n.Src[1]
		r := rowsOf(k, s)
		kvWrite(b.caches[n.Src[2]], p.act(k, r), n.Attn, n.Src[2].Ne[1], s.Pos0)
		kvWrite(b.caches[n.Src[3]], p.act(v, r), n.Attn, n.Src[3].Ne[1], s.Pos0)
	case compute.OpAttention:
		p.attention(dst, p.act(n.Src[0], rows), b.caches[n.Src[1]], b.caches[n.Src[2]], n.Src[1].Ne[1], n.Attn,
			s.Pos0, rows, s.Pos0+len(s.Tokens)-1)
	case compute.OpGLU:
		glu(dst, p.act(n.Src[0], rows), p.act(n.Src[1], rows), n.Act)
	case compute.OpAct:
		activate(dst, p.act(n.Src[0], rows), n.Act)
	case compute.OpAdd:
		add(dst, p.act(n.Src[0], rows), p.act(n.Src[1], rows))
	case compute.OpMul:
		mul(dst, p.act(n.Src[0], rows), p.act(n.Src[1], rows))
	case compute.OpScale:
		scale(dst, p.act(n.Src[0], rows), n.Scalar)
	case compute.OpSoftcap:
		softcap(dst, p.act(n.Src[0], rows), n.Scalar)
	case compute.OpLayerNorm:
		var w, bias []float32
		if n.Src[1] != nil {
			w = p.f32Weight(n.Src[1])
		}
		if n.Src[2] != nil {
			bias = p.f32Weight(n.Src[2])
		}
		layerNorm(dst, p.act(n.Src[0], rows), w, bias, n.Group, n.Eps)
	}
}

func (p *program) f32Weight(t *compute.Tensor) []float32 { return p.small[t] }

var _ compute.ArgmaxProgram = (*program)(nil)
