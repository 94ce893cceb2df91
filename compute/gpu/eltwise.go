package gpu

import (
	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/shaders"
)

// Lowering of the element-wise ops and LayerNorm, one dispatch each over
// the valid rows: GLU (when not fused into its matvec or matmul: fuse.go)
// as silu_mul or gelu_mul, Add, Mul, Act as silu or gelu, Scale, Softcap.

// gluAct returns the shaders activation of GLU or Act node n, failing the
// compile on one the kernels do not implement.
func (c *compiler) gluAct(n *compute.Node) (shaders.Act, bool) {
	switch n.Act {
	case compute.ActSiLU:
		return shaders.ActSiLU, true
	case compute.ActGELU:
		return shaders.ActGELU, true
	}
	c.fail(&Error{n.Op.String(), n.Act.String() + " not supported by the WebGPU backend"})
	return 0, false
}

// eltOps maps the element-wise graph ops to their kernels (GLU and Act by
// activation).
var eltOps = map[compute.Op]shaders.Op{
	compute.OpAdd: shaders.OpAdd, compute.OpMul: shaders.OpMul,
	compute.OpScale: shaders.OpScale, compute.OpSoftcap: shaders.OpSoftcap,
}

// eltwise lowers GLU, Add, Mul, Act, Scale and Softcap.
func (c *compiler) eltwise(n *compute.Node) {
	op, ok := eltOps[n.Op]
	if n.Op == compute.OpGLU || n.Op == compute.OpAct {
		act, known := c.gluAct(n)
		if !known {
			return
		}
		gelu := act == shaders.ActGELU
		switch {
		case n.Op == compute.OpGLU && gelu:
			op = shaders.OpGELUMul
		case n.Op == compute.OpGLU:
			op = shaders.OpSiLUMul
		case gelu:
			op = shaders.OpGELU
		default:
			op = shaders.OpSiLU
		}
		ok = true
	}
	if !ok {
		c.fail(&Error{n.Op.String(), "op not supported by the WebGPU backend"})
		return
	}
	dst, scalar := n.Dst, n.Scalar
	binds := []bref{c.act(n.Src[0])}
	if len(n.Src) > 1 {
		binds = append(binds, c.act(n.Src[1]))
	}
	binds = append(binds, c.act(dst))
	scales(c.dispatch(shaders.Key{Op: op}, shaders.Shape{N: dst.Elems()}, dynRows(dst),
		func(s *compute.Step) shaders.Params {
			return shaders.EltwiseParams{N: u32(rows(dst, s) * dst.Ne[0]), Scale: scalar}
		}, binds...), dst, false, true)
}

// layerNorm lowers LayerNorm [x, w|nil, b|nil] over groups of n.Group
// elements, one workgroup per group; an absent weight binds ones, an
// absent bias drops the binding (shaders.Key.Bias).
func (c *compiler) layerNorm(n *compute.Node) {
	x, dst := n.Src[0], n.Dst
	per := x.Ne[0] / n.Group
	wr := c.ones(n.Group)
	if n.Src[1] != nil {
		wr = c.small(n.Src[1])
	}
	binds := []bref{c.act(x), wr}
	bias := n.Src[2] != nil
	if bias {
		binds = append(binds, c.small(n.Src[2]))
	}
	binds = append(binds, c.act(dst))
	group, eps := n.Group, n.Eps
	scales(c.dispatch(shaders.Key{Op: shaders.OpLayerNorm, Bias: bias}, shaders.Shape{M: dst.Ne[1] * per}, dynRows(dst),
		func(s *compute.Step) shaders.Params {
			return shaders.LayerNormParams{K: u32(group), M: u32(rows(dst, s) * per), Eps: eps}
		}, binds...), dst, true, false)
}
