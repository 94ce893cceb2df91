package compute

import (
	"fmt"

	"github.com/webgguf/webgguf/gguf"
)

// Graph is a forward pass for micro-batches of at most B tokens, with
// logits for at most OutMax of them. Build it with the op methods; the
// first shape error sticks and is returned by Err (so model code reads like
// the equations, without an error check per op).
type Graph struct {
	B int
	// OutMax bounds the rows whose logits one step returns: the output
	// tensors are sized by it, not by B, because a row of logits is large
	// (128k floats for Llama 3) and prefill usually wants one.
	OutMax  int
	Nodes   []*Node
	Tokens  *Tensor // int32 [B] input: token ids
	OutRows *Tensor // int32 [OutMax] input: rows whose logits are wanted
	Logits  *Tensor // result: [n_vocab, OutMax] with NOut valid rows
	// NTokens bounds the token ids (the rows of the GetRows table); an
	// encoder's result rows are hidden states, narrower than its
	// vocabulary. 0 until GetRows is added.
	NTokens int
	// NPos bounds the positions of a step (Pos0 + tokens) where PosRows
	// reads a table of learned positions; 0 means no such bound.
	NPos int
	// ArenaSize is the number of f32 elements of the activation arena,
	// set by Plan.
	ArenaSize int

	tensors []*Tensor
	err     error
}

// NewGraph starts a graph for micro-batches of at most b tokens, returning
// logits for at most outMax (1..b) of them per step.
func NewGraph(b, outMax int) *Graph {
	g := &Graph{B: b, OutMax: outMax}
	if b < 1 || outMax < 1 || outMax > b {
		g.err = fmt.Errorf("compute: micro-batch size %d, output rows %d: need 1 <= rows <= size", b, outMax)
		g.B, g.OutMax = max(b, 1), max(outMax, 1)
	}
	g.Tokens = g.input("tokens", RowsTokens)
	g.OutRows = g.input("out_rows", RowsOut)
	return g
}

// Err returns the first error recorded while building.
func (g *Graph) Err() error { return g.err }

// Tensors returns the graph's activations and inputs in creation order.
func (g *Graph) Tensors() []*Tensor { return g.tensors }

func (g *Graph) input(name string, rows RowSpace) *Tensor {
	t := &Tensor{Name: name, Kind: Input, Type: gguf.TypeI32, Ne: [3]int{g.static(rows), 1, 1}, Rows: rows, id: len(g.tensors)}
	g.tensors = append(g.tensors, t)
	return t
}

func (g *Graph) act(name string, ne0 int, rows RowSpace) *Tensor {
	t := &Tensor{Name: name, Kind: Activation, Type: gguf.TypeF32, Ne: [3]int{ne0, g.static(rows), 1}, Rows: rows, id: len(g.tensors)}
	g.tensors = append(g.tensors, t)
	return t
}

// static is the allocated row count of a row space.
func (g *Graph) static(rows RowSpace) int {
	if rows == RowsOut {
		return g.OutMax
	}
	return g.B
}

func (g *Graph) fail(op Op, format string, args ...any) {
	if g.err == nil {
		g.err = fmt.Errorf("compute: %s: %s", op, fmt.Sprintf(format, args...))
	}
}

func (g *Graph) add(n *Node) *Tensor {
	g.Nodes = append(g.Nodes, n)
	return n.Dst
}

func isAct(t *Tensor) bool { return t != nil && t.Kind == Activation }

// GetRows looks up rows of the weight table ([n, vocab]) for the token ids.
func (g *Graph) GetRows(table *Tensor) *Tensor {
	if table == nil || table.Kind != Weight {
		g.fail(OpGetRows, "table %v is not a weight", table)
		return g.act("get_rows", 1, RowsTokens)
	}
	g.NTokens = table.Ne[1]
	return g.add(&Node{Op: OpGetRows, Src: []*Tensor{table, g.Tokens}, Dst: g.act("get_rows", table.Ne[0], RowsTokens)})
}

// PosRows looks up row Pos0+i of the weight table ([n, n_pos]) for each
// token row i: learned absolute positions (BERT).
func (g *Graph) PosRows(table *Tensor) *Tensor {
	if table == nil || table.Kind != Weight {
		g.fail(OpPosRows, "table %v is not a weight", table)
		return g.act("pos_rows", 1, RowsTokens)
	}
	if g.NPos == 0 || table.Ne[1] < g.NPos {
		g.NPos = table.Ne[1]
	}
	return g.add(&Node{Op: OpPosRows, Src: []*Tensor{table}, Dst: g.act("pos_rows", table.Ne[0], RowsTokens)})
}

// TypeRows repeats row 0 of the weight table ([n, n_types]) for every
// token row: the token type that llama.cpp fixes at 0 ("sentence A").
func (g *Graph) TypeRows(table *Tensor) *Tensor {
	if table == nil || table.Kind != Weight {
		g.fail(OpPosRows, "table %v is not a weight", table)
		return g.act("type_rows", 1, RowsTokens)
	}
	return g.add(&Node{Op: OpPosRows, Src: []*Tensor{table}, Dst: g.act("type_rows", table.Ne[0], RowsTokens), Row0: true})
}

// SelectRows keeps the rows of x listed in the OutRows input.
func (g *Graph) SelectRows(x *Tensor) *Tensor {
	if !isAct(x) || x.Rows != RowsTokens {
		g.fail(OpSelectRows, "source %v is not a token activation", x)
		return g.act("select_rows", 1, RowsOut)
	}
	return g.add(&Node{Op: OpSelectRows, Src: []*Tensor{x, g.OutRows}, Dst: g.act("select_rows", x.Ne[0], RowsOut)})
}

// RMSNorm normalises each group of `group` elements of each row of x to
// unit root-mean-square (plus eps) and multiplies by w ([group]) if not nil.
func (g *Graph) RMSNorm(x, w *Tensor, eps float32, group int) *Tensor {
	if !isAct(x) || group <= 0 || x.Ne[0]%group != 0 {
		g.fail(OpRMSNorm, "group %d does not divide %v", group, x)
		return g.act("rms_norm", 1, RowsTokens)
	}
	if w != nil && (w.Ne[0] != group || w.Ne[1] != 1) {
		g.fail(OpRMSNorm, "weight %v is not [%d]", w, group)
	}
	return g.add(&Node{Op: OpRMSNorm, Src: []*Tensor{x, w}, Dst: g.act("rms_norm", x.Ne[0], x.Rows), Eps: eps, Group: group})
}

// MatMul computes w·x (+bias): w is a weight [k, m], x an activation
// [k, B], bias nil or [m]; the result is [m, B].
func (g *Graph) MatMul(w, x, bias *Tensor) *Tensor {
	if w == nil || w.Kind != Weight || !isAct(x) || w.Ne[0] != x.Ne[0] {
		g.fail(OpMatMul, "cannot multiply %v by %v", w, x)
		return g.act("matmul", 1, RowsTokens)
	}
	if bias != nil && (bias.Ne[0] != w.Ne[1] || bias.Ne[1] != 1) {
		g.fail(OpMatMul, "bias %v is not [%d]", bias, w.Ne[1])
	}
	return g.add(&Node{Op: OpMatMul, Src: []*Tensor{w, x, bias}, Dst: g.act(w.Name, w.Ne[1], x.Rows)})
}

// Rope applies rotary position embedding to every head of x at positions
// Pos0+row. freqs, if not nil, is a weight [NRot/2] of per-pair frequency
// divisors (Llama 3.1's rope_freqs).
func (g *Graph) Rope(x *Tensor, p RopeParams, freqs *Tensor) *Tensor {
	if !isAct(x) || p.NHeads*p.HeadDim != x.Ne[0] || p.NRot <= 0 || p.NRot > p.HeadDim || p.NRot%2 != 0 {
		g.fail(OpRope, "params %+v do not fit %v", p, x)
		return g.act("rope", 1, RowsTokens)
	}
	if freqs != nil && (freqs.Kind != Weight || freqs.Ne[0] != p.NRot/2 || freqs.Ne[1] != 1) {
		g.fail(OpRope, "frequency factors %v are not [%d]", freqs, p.NRot/2)
	}
	return g.add(&Node{Op: OpRope, Src: []*Tensor{x, freqs}, Dst: g.act("rope", x.Ne[0], x.Rows), Rope: p})
}

// KVWrite stores the rows of k and v ([HeadDim*NHeadKV, B]) into the caches
// kc and vc at positions Pos0+row.
func (g *Graph) KVWrite(k, v, kc, vc *Tensor, p AttnParams) {
	w := p.HeadDim * p.NHeadKV
	if !isAct(k) || !isAct(v) || k.Ne[0] != w || v.Ne[0] != w || !fitsCache(kc, p) || !fitsCache(vc, p) {
		g.fail(OpKVWrite, "k %v, v %v do not fit caches %v, %v", k, v, kc, vc)
		return
	}
	g.Nodes = append(g.Nodes, &Node{Op: OpKVWrite, Src: []*Tensor{k, v, kc, vc}, Attn: p})
}

func fitsCache(c *Tensor, p AttnParams) bool {
	return c != nil && c.Kind == Cache && c.Ne[0] == p.HeadDim && c.Ne[2] == p.NHeadKV
}

// ringFits reports whether attention with p may read cache c: a ring
// (shorter than the context) must hold a whole window plus a micro-batch,
// because a batch's last row overwrites the slot of a position
// Ne[1] earlier.
func (g *Graph) ringFits(c *Tensor, p AttnParams) bool {
	return !c.Ring || p.Window > 0 && !p.NonCausal && c.Ne[1] >= p.Window+g.B-1
}

// Attention computes multi-head attention of q ([HeadDim*NHead, B]) over
// the cache: causal over positions 0..Pos0+row (or the last p.Window of
// them), or with p.NonCausal over positions 0..Pos0+N-1; the result has
// q's shape. A ring cache (NewRingCache) needs a window.
func (g *Graph) Attention(q, kc, vc *Tensor, p AttnParams) *Tensor {
	if !isAct(q) || p.NHeadKV <= 0 || p.NHead%p.NHeadKV != 0 || q.Ne[0] != p.HeadDim*p.NHead || !fitsCache(kc, p) || !fitsCache(vc, p) ||
		p.Window < 0 || p.Softcap < 0 || !g.ringFits(kc, p) || !g.ringFits(vc, p) {
		g.fail(OpAttention, "params %+v do not fit q %v, caches %v, %v", p, q, kc, vc)
		return g.act("attention", 1, RowsTokens)
	}
	return g.add(&Node{Op: OpAttention, Src: []*Tensor{q, kc, vc}, Dst: g.act("attention", q.Ne[0], q.Rows), Attn: p})
}

// SiluMul computes silu(gate)·up elementwise (a SwiGLU FFN's gate).
func (g *Graph) SiluMul(gate, up *Tensor) *Tensor { return g.GLU(gate, up, ActSiLU) }

// GLU computes act(gate)·up elementwise: SwiGLU with ActSiLU, GeGLU with
// ActGELU.
func (g *Graph) GLU(gate, up *Tensor, act ActFunc) *Tensor {
	if !isAct(gate) || !isAct(up) || gate.Ne != up.Ne || gate.Rows != up.Rows || act > ActGELU {
		g.fail(OpGLU, "shapes differ or unknown activation %v: %v, %v", act, gate, up)
		return g.act("glu", 1, RowsTokens)
	}
	return g.add(&Node{Op: OpGLU, Src: []*Tensor{gate, up}, Dst: g.act("glu", gate.Ne[0], gate.Rows), Act: act})
}

// Act applies act elementwise (an ungated FFN).
func (g *Graph) Act(x *Tensor, act ActFunc) *Tensor {
	if !isAct(x) || act > ActGELU {
		g.fail(OpAct, "cannot apply %v to %v", act, x)
		return g.act("act", 1, RowsTokens)
	}
	return g.add(&Node{Op: OpAct, Src: []*Tensor{x}, Dst: g.act(act.String(), x.Ne[0], x.Rows), Act: act})
}

// Add computes a+b elementwise.
func (g *Graph) Add(a, b *Tensor) *Tensor { return g.binary(OpAdd, a, b) }

// Mul computes a·b elementwise.
func (g *Graph) Mul(a, b *Tensor) *Tensor { return g.binary(OpMul, a, b) }

func (g *Graph) binary(op Op, a, b *Tensor) *Tensor {
	if !isAct(a) || !isAct(b) || a.Ne != b.Ne || a.Rows != b.Rows {
		g.fail(op, "shapes differ: %v, %v", a, b)
		return g.act(op.String(), 1, RowsTokens)
	}
	return g.add(&Node{Op: op, Src: []*Tensor{a, b}, Dst: g.act(op.String(), a.Ne[0], a.Rows)})
}

// Scale computes x·s elementwise (Gemma's embeddings × √n_embd).
func (g *Graph) Scale(x *Tensor, s float32) *Tensor {
	if !isAct(x) || s != s {
		g.fail(OpScale, "cannot scale %v by %g", x, s)
		return g.act("scale", 1, RowsTokens)
	}
	return g.add(&Node{Op: OpScale, Src: []*Tensor{x}, Dst: g.act("scale", x.Ne[0], x.Rows), Scalar: s})
}

// Softcap computes cap·tanh(x/cap) elementwise (Gemma 2's final logits).
func (g *Graph) Softcap(x *Tensor, cap float32) *Tensor {
	if !isAct(x) || !(cap > 0) {
		g.fail(OpSoftcap, "cap %g for %v must be positive", cap, x)
		return g.act("softcap", 1, RowsTokens)
	}
	return g.add(&Node{Op: OpSoftcap, Src: []*Tensor{x}, Dst: g.act("softcap", x.Ne[0], x.Rows), Scalar: cap})
}

// LayerNorm normalises each group of `group` elements of each row of x to
// zero mean and unit variance (plus eps), then multiplies by w and adds b
// ([group] each) where not nil.
func (g *Graph) LayerNorm(x, w, b *Tensor, eps float32, group int) *Tensor {
	if !isAct(x) || group <= 0 || x.Ne[0]%group != 0 {
		g.fail(OpLayerNorm, "group %d does not divide %v", group, x)
		return g.act("layer_norm", 1, RowsTokens)
	}
	for _, t := range []*Tensor{w, b} {
		if t != nil && (t.Ne[0] != group || t.Ne[1] != 1) {
			g.fail(OpLayerNorm, "weight %v is not [%d]", t, group)
		}
	}
	return g.add(&Node{Op: OpLayerNorm, Src: []*Tensor{x, w, b}, Dst: g.act("layer_norm", x.Ne[0], x.Rows), Eps: eps, Group: group})
}

// SetLogits marks t ([n_vocab, OutMax], RowsOut) as the graph's result and
// lays out the activation arena. It returns the graph's build error.
func (g *Graph) SetLogits(t *Tensor) error {
	if g.err == nil && (!isAct(t) || t.Rows != RowsOut) {
		g.fail(OpMatMul, "logits %v are not output rows", t)
	}
	g.Logits = t
	if g.err != nil {
		return g.err
	}
	g.plan()
	return nil
}
