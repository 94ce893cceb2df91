package shaders

import (
	"fmt"
	"math"

	"github.com/webgguf/webgguf/gguf"
)

// bind is one entry of an op's layout.
type bind struct {
	name string
	kind Binding
}

// opSpec describes one op: its template, how a key is checked and
// defaulted, its bindings and its grid.
type opSpec struct {
	file     string
	fileFor  func(Key) string // overrides file when set
	weights  bool             // the template calls dq/dot8 on binding w
	resolve  func(Key) (Key, error)
	derive   func(*tmplData)
	layout   func(Key) []bind
	dispatch func(Key, Shape) (x, y, z uint32)
	wgBytes  func(tmplData) int
}

func (s *opSpec) bindings(k Key) []Binding {
	var out []Binding
	for _, b := range s.layout(k) {
		out = append(out, b.kind)
	}
	return out
}

func (s *opSpec) names(k Key) []string {
	var out []string
	for _, b := range s.layout(k) {
		out = append(out, b.name)
	}
	return out
}

// unaryElt reports whether element-wise op o reads a alone (no b).
func unaryElt(o Op) bool { return o == OpGELU || o == OpScale || o == OpSiLU || o == OpSoftcap }

func isPow2(n int) bool { return n > 0 && n&(n-1) == 0 }

// defWG fills a zero workgroup size and checks it is a power of two in [lo, 1024].
func defWG(k *Key, def, lo int) error {
	if k.WG == 0 {
		k.WG = def
	}
	if !isPow2(k.WG) || k.WG < lo || k.WG > 1024 {
		return &KeyError{*k, "WG", fmt.Sprintf("%d is not a power of two in [%d, 1024]", k.WG, lo)}
	}
	return nil
}

func checkWeight(k Key) error {
	for _, t := range WeightTypes {
		if t == k.Weight {
			return nil
		}
	}
	return &KeyError{k, "Weight", fmt.Sprintf("unsupported weight type %s", k.Weight)}
}

func checkHeadDim(k Key) error {
	if k.HeadDim < 2 || k.HeadDim > 256 || k.HeadDim%2 != 0 {
		return &KeyError{k, "HeadDim", fmt.Sprintf("%d is not even in [2, 256]", k.HeadDim)}
	}
	return nil
}

// clearUnused zeroes the fields an op ignores so equal kernels share one key.
func clearUnused(k Key, keep func(*Key)) Key {
	c := Key{Op: k.Op, F16: k.F16, Subgroups: k.Subgroups, WG: k.WG}
	keep(&c)
	return c
}

func ro(name string) bind { return bind{name, ReadOnlyStorage} }
func rw(name string) bind { return bind{name, Storage} }

var uni = bind{"params", Uniform}

var specs = map[Op]*opSpec{}

func init() {
	specs[OpGetRows] = &opSpec{
		file: "get_rows.wgsl", weights: true,
		resolve: func(k Key) (Key, error) {
			if err := checkWeight(k); err != nil {
				return k, err
			}
			if err := defWG(&k, 128, 32); err != nil {
				return k, err
			}
			return clearUnused(k, func(c *Key) { c.Weight = k.Weight }), nil
		},
		layout: func(Key) []bind { return []bind{uni, ro("w"), ro("ids"), rw("y")} },
		dispatch: func(k Key, s Shape) (uint32, uint32, uint32) {
			// z: spans of K, one workgroup of elements each (Shape.K 0: one).
			x, y, _ := spread(s.M)
			return x, y, uint32(min(maxGrid, max(1, ceilDiv(s.K, k.WG))))
		},
		wgBytes: func(tmplData) int { return 0 },
	}
	specs[OpMatvec] = &opSpec{
		file: "matvec_q.wgsl", weights: true,
		fileFor: func(k Key) string {
			if k.Weight.BlockSize() == 1 {
				return "matvec_plain.wgsl"
			}
			return "matvec_q.wgsl"
		},
		resolve: func(k Key) (Key, error) {
			if err := checkWeight(k); err != nil {
				return k, err
			}
			if k.PostAdd && (!k.Norm || k.Weight.BlockSize() == 1) {
				return k, &KeyError{k, "PostAdd", "needs Norm and a block format (matvec_q.wgsl's staging)"}
			}
			if k.MergeX && (k.Norm || k.PostAdd || k.SwiGLU || k.Weight.BlockSize() == 1) {
				return k, &KeyError{k, "MergeX", "needs a block format without Norm, PostAdd or SwiGLU (matvec_q.wgsl's staging)"}
			}
			if k.MergeX && (k.HeadDim < 4 || k.HeadDim > 256 || k.HeadDim%4 != 0) {
				return k, &KeyError{k, "HeadDim", fmt.Sprintf("%d: MergeX takes head sizes in [4, 256] that are multiples of 4", k.HeadDim)}
			}
			// Defaults: 64 threads in two 32-thread groups of 4 rows each, near
			// the best at every shape of the H200 sweep (bench-kernels
			// -sweep); the runtime may pick per shape.
			if err := defWG(&k, 64, 1); err != nil {
				return k, err
			}
			if k.RPT == 0 {
				k.RPT = 4
			}
			if k.Rows == 0 {
				k.Rows = 2 * k.RPT
			}
			if !isPow2(k.RPT) || k.RPT > 16 || !isPow2(k.Rows) || k.Rows%k.RPT != 0 || k.Rows > k.WG*k.RPT {
				return k, &KeyError{k, "Rows/RPT", fmt.Sprintf("rows %d per workgroup, %d per thread: want powers of two, RPT <= 16, Rows a multiple of RPT", k.Rows, k.RPT)}
			}
			if t := k.WG * k.RPT / k.Rows; t < k.RPT {
				return k, &KeyError{k, "Rows", fmt.Sprintf("%d threads per row group is fewer than RPT %d", t, k.RPT)}
			}
			if k.SwiGLU && (k.Bias || k.Residual) {
				return k, &KeyError{k, "SwiGLU", "cannot be combined with Bias or Residual"}
			}
			k = clearUnused(k, func(c *Key) {
				c.Weight, c.Rows, c.RPT, c.Bias, c.Residual, c.SwiGLU, c.Norm = k.Weight, k.Rows, k.RPT, k.Bias, k.Residual, k.SwiGLU, k.Norm
				c.PostAdd = k.PostAdd
				if k.MergeX {
					c.MergeX, c.HeadDim = true, k.HeadDim
				}
				c.Act = k.Act
				c.Packed = k.Packed && packedType(k.Weight)
				c.XU = k.XU
			})
			if k.Weight.BlockSize() == 1 {
				k.XU = 0 // the plain kernel stages no x
			} else if err := resolveXU(&k); err != nil {
				return k, err
			}
			d := tmplData{Key: k}
			deriveMatvec(&d)
			if n := matvecWGBytes(d); n > 16384 {
				return k, &KeyError{k, "WG", fmt.Sprintf("needs %d bytes of workgroup memory, over WebGPU's default 16384; use a smaller WG or RPT", n)}
			}
			return k, nil
		},
		derive: deriveMatvec,
		layout: func(k Key) []bind {
			l := []bind{uni, ro("w"), ro("x"), rw("y")}
			if k.SwiGLU {
				l = append(l, ro("w_up"))
			}
			if k.Bias {
				l = append(l, ro("bias"))
			}
			if k.Residual {
				l = append(l, ro("res"))
			}
			if k.Norm {
				l = append(l, ro("norm"))
			}
			if k.PostAdd {
				l = append(l, ro("post_res"), ro("post_norm"), rw("post_out"))
			}
			return l
		},
		dispatch: func(k Key, s Shape) (uint32, uint32, uint32) {
			return spread(ceilDiv(s.N, k.Rows))
		},
		wgBytes: matvecWGBytes,
	}
	specs[OpMatmul] = &opSpec{
		file: "matmul.wgsl", weights: true,
		resolve: func(k Key) (Key, error) {
			if err := checkWeight(k); err != nil {
				return k, err
			}
			if k.WG == 0 {
				k.WG = 256
			}
			if k.WG != 256 {
				return k, &KeyError{k, "WG", fmt.Sprintf("%d: the matmul runs 16x16 = 256 threads", k.WG)}
			}
			if k.TM == 0 {
				// Fastest on the H200 at 512x2048x8192 (BENCH.md); 64-row
				// tiles waste less on short prompts.
				k.TM, k.TN, k.TK = 128, 128, 8
			}
			if k.SplitK < 0 || k.SplitK > 16 {
				return k, &KeyError{k, "SplitK", fmt.Sprintf("%d: want 0..16", k.SplitK)}
			}
			if k.SplitK == 1 {
				k.SplitK = 0
			}
			okTile := func(v int) bool { return v == 64 || v == 128 }
			if !okTile(k.TM) || !okTile(k.TN) || k.TK < 1 || k.TK > 32 {
				return k, &KeyError{k, "TM/TN/TK", fmt.Sprintf("tile %dx%dx%d: TM and TN must be 64 or 128, TK in [1, 32]", k.TM, k.TN, k.TK)}
			}
			if (k.TM+k.TN)*k.TK*4 > 16384 {
				return k, &KeyError{k, "TM/TN/TK", "tiles exceed 16 KiB of workgroup memory"}
			}
			if k.DB && (k.TK%4 != 0 || (k.TM+k.TN)*k.TK*8 > 16384) {
				return k, &KeyError{k, "DB", fmt.Sprintf("tile %dx%dx%d: double buffering needs TK a multiple of 4 and (TM+TN)·TK·8 bytes within 16 KiB", k.TM, k.TN, k.TK)}
			}
			if k.XVec && k.TK%4 != 0 {
				return k, &KeyError{k, "XVec", fmt.Sprintf("tile %dx%dx%d: vec4 x reads need TK a multiple of 4", k.TM, k.TN, k.TK)}
			}
			// SwiGLU pairs a thread's two column vec4s (TN = 128) and
			// stages 4 k per slot; its epilogue is neither linear (no split)
			// nor followed by a bias or residual.
			if k.SwiGLU && (k.TN != 128 || k.TK%4 != 0 || k.SplitK > 1 || k.Bias || k.Residual) {
				return k, &KeyError{k, "SwiGLU", "needs TN 128, TK a multiple of 4, no split, bias or residual"}
			}
			// QKV picks the matrix per staging slot (the 4-k staging path
			// only) and routes each column to its output and bias.
			if k.QKV && (k.TK%4 != 0 || k.SwiGLU || k.Residual) {
				return k, &KeyError{k, "QKV", "needs TK a multiple of 4, no SwiGLU or residual"}
			}
			if err := resolveMatmulQKVTypes(&k); err != nil {
				return k, err
			}
			if k.OneW && (!k.SwiGLU && !k.QKV || !k.XVec || k.Weight.BlockSize() != 1 || k.WeightK != 0 || k.WeightV != 0) {
				return k, &KeyError{k, "OneW", "needs a SwiGLU or QKV matmul of one plain format (f32, f16, bf16) with XVec"}
			}
			return clearUnused(k, func(c *Key) {
				c.Weight, c.TM, c.TN, c.TK, c.DB, c.Bias, c.Residual, c.SplitK, c.SwiGLU, c.QKV = k.Weight, k.TM, k.TN, k.TK, k.DB, k.Bias, k.Residual, k.SplitK, k.SwiGLU, k.QKV
				c.WeightK, c.WeightV, c.XVec, c.OneW, c.Act = k.WeightK, k.WeightV, k.XVec, k.OneW, k.Act
			}), nil
		},
		derive: func(d *tmplData) {
			d.RM = d.TM / 16
			d.RN = d.TN / 16
			d.MixedQKV = d.QKV && (d.WeightK != 0 || d.WeightV != 0)
			// XVec's K % 4 == 0 puts plain W rows on 4-element vectors
			// too: a staging slot's 4 elements become one 8- or 16-byte
			// load (mixed QKV matmuls are block formats).
			if d.XVec && !d.MixedQKV && d.Weight.BlockSize() == 1 {
				d.WLoad = d.Weight.TypeSize() // 4 elements of TypeSize bytes
			}
		},
		layout: func(k Key) []bind {
			l := []bind{uni, ro("w"), ro("x"), rw("y")}
			if k.Bias {
				l = append(l, ro("bias"))
			}
			if k.Residual {
				l = append(l, ro("res"))
			}
			if k.SwiGLU && !k.OneW {
				l = append(l, ro("wu"))
			}
			if k.QKV {
				if !k.OneW {
					l = append(l, ro("wk"), ro("wv"))
				}
				if k.Bias {
					l = append(l, ro("bias_k"), ro("bias_v"))
				}
				if k.SplitK == 0 {
					l = append(l, rw("yk"), rw("yv"))
				}
			}
			return l
		},
		// Shape.N: output columns; with SwiGLU the gate and up rows (2N),
		// with QKV Nq + Nk + Nv.
		dispatch: func(k Key, s Shape) (uint32, uint32, uint32) {
			return dim(ceilDiv(s.N, k.TN)), dim(ceilDiv(s.M, k.TM)), uint32(max(k.SplitK, 1))
		},
		wgBytes: func(d tmplData) int {
			if d.DB {
				return 8 * (d.TM + d.TN) * d.TK
			}
			return 4 * (d.TM + d.TN) * d.TK
		},
	}
	specs[OpRMSNorm] = &opSpec{
		file: "rms_norm.wgsl",
		resolve: func(k Key) (Key, error) {
			if err := defWG(&k, 256, 32); err != nil {
				return k, err
			}
			if k.Residual && k.PostAdd {
				return k, &KeyError{k, "PostAdd", "cannot be combined with Residual"}
			}
			return clearUnused(k, func(c *Key) { c.Residual, c.PostAdd = k.Residual, k.PostAdd }), nil
		},
		layout: func(k Key) []bind {
			if k.Residual {
				return []bind{uni, ro("x"), ro("res"), ro("weight"), rw("y"), rw("sum")}
			}
			if k.PostAdd {
				return []bind{uni, ro("x"), ro("res"), ro("weight"), rw("y")}
			}
			return []bind{uni, ro("x"), ro("weight"), rw("y")}
		},
		dispatch: func(k Key, s Shape) (uint32, uint32, uint32) { return spread(s.M) },
		wgBytes:  func(d tmplData) int { return 4 * d.WG },
	}
	specs[OpRoPE] = &opSpec{
		file: "rope.wgsl",
		resolve: func(k Key) (Key, error) {
			if err := defWG(&k, 256, 32); err != nil {
				return k, err
			}
			return clearUnused(k, func(c *Key) { c.Neox, c.FreqFactors = k.Neox, k.FreqFactors }), nil
		},
		layout: func(k Key) []bind {
			if k.FreqFactors {
				return []bind{uni, rw("x"), ro("freq_factors")}
			}
			return []bind{uni, rw("x")}
		},
		dispatch: func(k Key, s Shape) (uint32, uint32, uint32) {
			return spread(ceilDiv(s.M*s.Heads*(s.K/2), k.WG))
		},
		wgBytes: func(tmplData) int { return 0 },
	}
	for _, op := range []Op{OpSiLUMul, OpGELU, OpAdd, OpScale, OpGELUMul, OpSiLU, OpMul, OpSoftcap} {
		op := op
		specs[op] = &opSpec{
			file: "eltwise.wgsl",
			resolve: func(k Key) (Key, error) {
				if err := defWG(&k, 256, 32); err != nil {
					return k, err
				}
				return clearUnused(k, func(*Key) {}), nil
			},
			derive: func(d *tmplData) {
				d.Elt = op.String()
				if op == OpGELU || op == OpGELUMul {
					d.ActFn = ActGELU.String()
				}
			},
			layout: func(Key) []bind {
				if unaryElt(op) {
					return []bind{uni, ro("a"), rw("y")}
				}
				return []bind{uni, ro("a"), ro("b"), rw("y")}
			},
			dispatch: func(k Key, s Shape) (uint32, uint32, uint32) { return spread(ceilDiv(s.N, k.WG)) },
			wgBytes:  func(tmplData) int { return 0 },
		}
	}
	specs[OpLayerNorm] = &opSpec{
		file: "layer_norm.wgsl",
		resolve: func(k Key) (Key, error) {
			if err := defWG(&k, 256, 32); err != nil {
				return k, err
			}
			return clearUnused(k, func(c *Key) { c.Bias = k.Bias }), nil
		},
		layout: func(k Key) []bind {
			if k.Bias {
				return []bind{uni, ro("x"), ro("weight"), ro("bias"), rw("y")}
			}
			return []bind{uni, ro("x"), ro("weight"), rw("y")}
		},
		dispatch: func(k Key, s Shape) (uint32, uint32, uint32) { return spread(s.M) },
		wgBytes:  func(d tmplData) int { return 4 * d.WG },
	}
	specs[OpSplitSum] = &opSpec{
		file: "split_sum.wgsl",
		resolve: func(k Key) (Key, error) {
			if err := defWG(&k, 256, 32); err != nil {
				return k, err
			}
			if k.SplitK < 2 || k.SplitK > 16 {
				return k, &KeyError{k, "SplitK", fmt.Sprintf("%d: want 2..16 slices", k.SplitK)}
			}
			return clearUnused(k, func(c *Key) { c.SplitK, c.QKV = k.SplitK, k.QKV }), nil
		},
		layout: func(k Key) []bind {
			if k.QKV {
				return []bind{uni, ro("part"), rw("y"), rw("yk"), rw("yv")}
			}
			return []bind{uni, ro("part"), rw("y")}
		},
		dispatch: func(k Key, s Shape) (uint32, uint32, uint32) { return spread(ceilDiv(s.N, k.WG)) },
		wgBytes:  func(tmplData) int { return 0 },
	}
	specs[OpKVWrite] = &opSpec{
		file: "kv_write.wgsl",
		resolve: func(k Key) (Key, error) {
			if err := defWG(&k, 256, 32); err != nil {
				return k, err
			}
			if k.KV != gguf.TypeF32 && k.KV != gguf.TypeF16 {
				return k, &KeyError{k, "KV", fmt.Sprintf("KV cache type %s is not f32 or f16", k.KV)}
			}
			return clearUnused(k, func(c *Key) { c.KV, c.Ring = k.KV, k.Ring }), nil
		},
		layout: func(Key) []bind { return []bind{uni, ro("k"), ro("v"), rw("k_cache"), rw("v_cache")} },
		dispatch: func(k Key, s Shape) (uint32, uint32, uint32) {
			return spread(ceilDiv(s.M*s.KVHeads*s.K/2, k.WG))
		},
		wgBytes: func(tmplData) int { return 0 },
	}
	specs[OpMatvecQKV] = &opSpec{
		file: "matvec_qkv.wgsl", weights: true,
		resolve: func(k Key) (Key, error) {
			for _, w := range []struct {
				t     gguf.GGMLType
				field string
			}{{k.Weight, "Weight"}, {k.WeightK, "WeightK"}, {k.WeightV, "WeightV"}} {
				if err := checkWeight(Key{Op: k.Op, Weight: w.t}); err != nil {
					return k, &KeyError{k, w.field, fmt.Sprintf("unsupported weight type %s", w.t)}
				}
			}
			if err := defWG(&k, 64, 1); err != nil {
				return k, err
			}
			if k.RPT == 0 {
				k.RPT = 4
			}
			if k.Rows == 0 {
				k.Rows = 2 * k.RPT
			}
			if !isPow2(k.RPT) || k.RPT > 16 || !isPow2(k.Rows) || k.Rows%k.RPT != 0 || k.WG*k.RPT/k.Rows < k.RPT {
				return k, &KeyError{k, "Rows/RPT", fmt.Sprintf("rows %d per workgroup, %d per thread: want powers of two, RPT <= 16, Rows a multiple of RPT, WG*RPT/Rows >= RPT", k.Rows, k.RPT)}
			}
			if k.SwiGLU || k.Residual {
				return k, &KeyError{k, "SwiGLU/Residual", "not available in the fused QKV matvec"}
			}
			if err := qkvRopeCheck(k); err != nil {
				return k, err
			}
			if k.PostAdd && (!k.Norm || plainQKV(k.Weight, k.WeightK, k.WeightV)) {
				return k, &KeyError{k, "PostAdd", "needs Norm and a block format (the x staging of matvec_qkv.wgsl)"}
			}
			k = clearUnused(k, func(c *Key) {
				c.Weight, c.WeightK, c.WeightV, c.Rows, c.RPT, c.Bias, c.Norm, c.XU = k.Weight, k.WeightK, k.WeightV, k.Rows, k.RPT, k.Bias, k.Norm, k.XU
				c.PostAdd = k.PostAdd
				c.HeadDim, c.FreqFactors, c.Neox = k.HeadDim, k.FreqFactors && k.HeadDim > 0, k.Neox && k.HeadDim > 0
				if k.HeadDim > 0 {
					c.KV, c.Ring = k.KV, k.Ring
				}
			})
			err := resolveXU(&k)
			return k, err
		},
		derive: func(d *tmplData) {
			d.RedSize = d.WG * d.RPT
			// Plain formats too: their units are whole 16-byte vectors
			// (udot's loads; 16.9 µs of F16 decode's QKV on the H200 read
			// 12.6 MB a word at a time).
			d.VecW = vecType(d.Weight, d.Packed) || d.Weight.BlockSize() == 1
			d.VecK = vecType(d.WeightK, d.Packed) || d.WeightK.BlockSize() == 1
			d.VecV = vecType(d.WeightV, d.Packed) || d.WeightV.BlockSize() == 1
			d.Plain = plainQKV(d.Weight, d.WeightK, d.WeightV)
		},
		layout: func(k Key) []bind {
			l := []bind{uni, ro("w_q"), ro("x"), rw("y_q"), ro("w_k"), rw("y_k"), ro("w_v"), rw("y_v")}
			if k.Bias {
				l = append(l, ro("bias_q"), ro("bias_k"), ro("bias_v"))
			}
			if k.Norm {
				l = append(l, ro("norm"))
			}
			if k.HeadDim > 0 {
				l = append(l, rw("k_cache"), rw("v_cache"))
				if k.FreqFactors {
					l = append(l, ro("freq_factors"))
				}
			}
			if k.PostAdd {
				l = append(l, ro("post_res"), ro("post_norm"), rw("post_out"))
			}
			return l
		},
		dispatch: func(k Key, s Shape) (uint32, uint32, uint32) {
			return spread(ceilDiv(s.N, k.Rows))
		},
		wgBytes: func(d tmplData) int {
			if d.Plain {
				return 4 * d.RedSize // no x staging
			}
			return 4*d.RedSize + 128*d.XU
		},
	}
	specs[OpRoPEKV] = &opSpec{
		file: "rope_kv.wgsl",
		resolve: func(k Key) (Key, error) {
			// The Norm variant runs a workgroup per head row, HeadDim/2
			// or so threads of work each (64 covers Qwen3's 128 in one
			// pair a thread, Gemma 3's 256 in two).
			def := 256
			if k.Norm {
				def = 64
			}
			if err := defWG(&k, def, 32); err != nil {
				return k, err
			}
			if k.KV != gguf.TypeF32 && k.KV != gguf.TypeF16 {
				return k, &KeyError{k, "KV", fmt.Sprintf("KV cache type %s is not f32 or f16", k.KV)}
			}
			return clearUnused(k, func(c *Key) {
				c.KV, c.Neox, c.FreqFactors, c.Ring, c.Norm = k.KV, k.Neox, k.FreqFactors, k.Ring, k.Norm
			}), nil
		},
		layout: func(k Key) []bind {
			l := []bind{uni, rw("q"), ro("k"), ro("v"), rw("k_cache"), rw("v_cache")}
			if k.FreqFactors {
				l = append(l, ro("freq_factors"))
			}
			if k.Norm {
				l = append(l, ro("q_norm"), ro("k_norm"))
			}
			return l
		},
		dispatch: func(k Key, s Shape) (uint32, uint32, uint32) {
			if k.Norm {
				// A workgroup per q head row and per k (and v) head row.
				return spread(s.M * (s.Heads + s.KVHeads))
			}
			// Shape.K is the rotary dims, Shape.N the head size.
			return spread(ceilDiv(s.M*s.Heads*(s.K/2)+2*s.M*s.KVHeads*(s.N/2), k.WG))
		},
		derive: func(d *tmplData) {
			if d.Norm {
				d.MaxHeadDim = RoPEKVNormMaxHeadDim
			}
		},
		wgBytes: func(d tmplData) int {
			if d.Norm {
				return 4 * (d.WG + 2*d.MaxHeadDim)
			}
			return 0
		},
	}
	attnResolve := func(k Key) (Key, error) {
		if err := checkHeadDim(k); err != nil {
			return k, err
		}
		if k.KV != gguf.TypeF32 && k.KV != gguf.TypeF16 {
			return k, &KeyError{k, "KV", fmt.Sprintf("KV cache type %s is not f32 or f16", k.KV)}
		}
		if k.Window < 0 {
			return k, &KeyError{k, "Window", fmt.Sprintf("%d is negative", k.Window)}
		}
		if !(k.Softcap >= 0) || math.IsInf(float64(k.Softcap), 0) {
			return k, &KeyError{k, "Softcap", fmt.Sprintf("%g is not finite and >= 0", k.Softcap)}
		}
		return clearUnused(k, func(c *Key) {
			c.KV, c.HeadDim, c.Window, c.Softcap, c.Ring = k.KV, k.HeadDim, k.Window, k.Softcap, k.Ring
			c.NonCausal = k.NonCausal && k.Op == OpAttnPrefill // one query row: causal is non-causal
		}), nil
	}
	specs[OpAttnDecode] = &opSpec{
		file: "attn_decode.wgsl",
		fileFor: func(k Key) string {
			if k.Coop && k.Group > 1 {
				return "attn_decode_gqa.wgsl"
			}
			if k.Coop && k.TK > 0 {
				return "attn_decode_wide.wgsl"
			}
			if k.Coop {
				return "attn_decode_coop.wgsl"
			}
			return "attn_decode.wgsl"
		},
		resolve: func(k Key) (Key, error) {
			if err := defWG(&k, 64, 32); err != nil {
				return k, err
			}
			ns, g, coop, pf := k.NoSplit, k.Group, k.Coop, k.Prefetch
			if g == 0 {
				g = 1
			}
			if g < 1 || g > 16 {
				return k, &KeyError{k, "Group", fmt.Sprintf("%d not in [1, 16]", k.Group)}
			}
			if coop && !CoopAttn(k.HeadDim, g, k.WG) {
				return k, &KeyError{k, "Coop", fmt.Sprintf("head size %d, group %d, %d threads: want one head a workgroup and HeadDim/4 a power of two <= WG", k.HeadDim, g, k.WG)}
			}
			if pf && (!coop || g > 1) {
				return k, &KeyError{k, "Prefetch", "needs Coop without Group"}
			}
			tk := k.TK
			if tk != 0 && !wideAttnFits(k.HeadDim, k.WG, tk) {
				return k, &KeyError{k, "TK", fmt.Sprintf("%d keys a tile: want Coop, no Group or Prefetch, and with D/4 quads a row: TK dividing WG, WG/TK dividing D/4, D/4 dividing WG, WG/(D/4) dividing TK, TK a multiple of 4", tk)}
			}
			if tk != 0 && (!coop || g > 1 || pf) {
				return k, &KeyError{k, "TK", "keys a tile (the wide kernel) needs Coop without Group or Prefetch"}
			}
			k, err := attnResolve(k)
			k.NoSplit, k.Group, k.Coop, k.Prefetch, k.TK = ns, g, coop, pf, tk
			return k, err
		},
		derive: func(d *tmplData) {
			d.DPT = ceilDiv(d.HeadDim, d.WG)
			d.Lanes, d.Subs = gqaLanes(d.Group)
		},
		layout: func(k Key) []bind {
			if k.NoSplit {
				return []bind{uni, ro("q"), ro("k_cache"), ro("v_cache"), rw("out")}
			}
			return []bind{uni, ro("q"), ro("k_cache"), ro("v_cache"), rw("partial")}
		},
		dispatch: func(k Key, s Shape) (uint32, uint32, uint32) {
			y := s.Heads
			if k.Group > 1 {
				y = s.KVHeads
				if k.Coop {
					_, subs := gqaLanes(k.Group)
					y *= subs
				}
			}
			if k.NoSplit {
				return 1, dim(y), 1
			}
			return dim(s.Splits), dim(y), 1
		},
		wgBytes: func(d tmplData) int {
			if d.Coop && d.TK > 0 { // attn_decode_wide.wgsl
				return 4*d.HeadDim + 4*d.WG + 4*d.TK + 16*d.WG + 4*(d.WG/(d.HeadDim/4))
			}
			if d.Coop && d.Group > 1 {
				vg := 16 // array stride of a vec3 or vec4
				if d.Lanes == 2 {
					vg = 8
				}
				return 4*d.Lanes*d.HeadDim + 2*vg*d.WG + 16*d.Lanes*d.WG
			}
			if d.Coop {
				return 4*d.HeadDim + 8*d.WG + 16*d.WG
			}
			return 4 * (d.Group*d.HeadDim + d.Group*d.WG + d.WG)
		},
	}
	specs[OpAttnMerge] = &opSpec{
		file: "attn_merge.wgsl",
		resolve: func(k Key) (Key, error) {
			// WG: 64 dims × WG/64 lanes a dim (attn_merge.wgsl).
			if err := defWG(&k, 256, 64); err != nil {
				return k, err
			}
			if err := checkHeadDim(k); err != nil {
				return k, err
			}
			return clearUnused(k, func(c *Key) { c.HeadDim = k.HeadDim }), nil
		},
		layout:   func(Key) []bind { return []bind{uni, ro("partial"), rw("out")} },
		dispatch: func(k Key, s Shape) (uint32, uint32, uint32) { return dim(s.Heads), uint32(k.HeadDim+63) / 64, 1 },
		wgBytes:  func(d tmplData) int { return 16 * d.WG },
	}
	specs[OpAttnPrefill] = &opSpec{
		file: "attn_prefill.wgsl",
		fileFor: func(k Key) string {
			if k.Coop {
				return "attn_prefill_tiled.wgsl"
			}
			return "attn_prefill.wgsl"
		},
		resolve: func(k Key) (Key, error) {
			if k.Coop {
				return resolveAttnPrefillTiled(k, attnResolve)
			}
			if err := defWG(&k, 64, 16); err != nil {
				return k, err
			}
			// SplitK: threads per query (attn_prefill.wgsl), each taking
			// a P-th of every K/V tile; the merge needs WG·P pairs.
			parts := max(k.SplitK, 1)
			if !isPow2(parts) || parts > 8 || parts > k.WG || k.WG*parts > 1024 || parts > 1 && 2*parts > k.HeadDim {
				return k, &KeyError{k, "SplitK", fmt.Sprintf("%d threads per query: not a power of two <= 8, WG, 1024/WG, HeadDim/2", k.SplitK)}
			}
			k, err := attnResolve(k)
			if parts > 1 {
				k.SplitK = parts
			}
			return k, err
		},
		derive: func(d *tmplData) {
			if d.Coop {
				d.BC = AttnTiledKeys(d.HeadDim, d.WG)
				if d.TK > 0 {
					d.BC = d.TK
				}
				return
			}
			// Two BC x HeadDim f32 tiles (K and V) within 8 KiB, BC a
			// multiple of the threads per query.
			parts := max(d.SplitK, 1)
			d.BC = max(parts, 1024/d.HeadDim/parts*parts)
		},
		layout: func(Key) []bind {
			return []bind{uni, ro("q"), ro("k_cache"), ro("v_cache"), rw("out")}
		},
		dispatch: func(k Key, s Shape) (uint32, uint32, uint32) {
			if k.Coop {
				return dim(ceilDiv(s.M, k.WG/4)), dim(s.Heads), 1
			}
			return dim(ceilDiv(s.M, k.WG/max(k.SplitK, 1))), dim(s.Heads), 1
		},
		wgBytes: func(d tmplData) int {
			if d.Coop {
				return attnTiledBytes(d.HeadDim, d.WG, d.BC)
			}
			if d.SplitK > 1 {
				return 8*d.BC*d.HeadDim + 8*d.WG*d.SplitK
			}
			return 8 * d.BC * d.HeadDim
		},
	}
	specs[OpArgmax] = &opSpec{
		file: "argmax.wgsl",
		resolve: func(k Key) (Key, error) {
			if err := defWG(&k, 256, 32); err != nil {
				return k, err
			}
			return clearUnused(k, func(*Key) {}), nil
		},
		layout:   func(Key) []bind { return []bind{uni, ro("x"), rw("out")} },
		dispatch: func(Key, Shape) (uint32, uint32, uint32) { return 1, 1, 1 },
		wgBytes:  func(d tmplData) int { return 8 * d.WG },
	}
	specs[OpTopK] = &opSpec{
		file: "top_k.wgsl",
		resolve: func(k Key) (Key, error) {
			wg := 128
			if k.Merge {
				wg = TopKMaxSplits
			}
			if err := defWG(&k, wg, 32); err != nil {
				return k, err
			}
			if k.TopK < 1 || k.TopK > 64 {
				return k, &KeyError{k, "TopK", fmt.Sprintf("%d not in [1, 64]", k.TopK)}
			}
			if k.Merge && k.WG < TopKMaxSplits {
				return k, &KeyError{k, "WG", fmt.Sprintf("%d: the merge pass needs a thread per list (%d)", k.WG, TopKMaxSplits)}
			}
			return clearUnused(k, func(c *Key) { c.TopK, c.Merge = k.TopK, k.Merge }), nil
		},
		layout: func(Key) []bind { return []bind{uni, ro("x"), rw("out")} },
		// The scan pass runs one workgroup per list (Shape.Splits, 0 or 1:
		// a single list, the answer); the merge pass one workgroup.
		dispatch: func(k Key, s Shape) (uint32, uint32, uint32) {
			if k.Merge {
				return 1, 1, 1
			}
			return dim(max(1, s.Splits)), 1, 1
		},
		wgBytes: func(d tmplData) int { return 8 * d.WG },
	}
}

// deriveMatvec sizes the reduction array: one slot per thread and
// accumulator (RPT rows, twice with SwiGLU).
func deriveMatvec(d *tmplData) {
	d.RedSize = d.WG * d.RPT
	if d.SwiGLU {
		d.RedSize *= 2
	}
	d.Plain = d.Weight.BlockSize() == 1
	d.VecW = d.Plain || vecType(d.Weight, d.Packed)
}

// matvecWGBytes counts the reduction array and, for block formats, the
// staged x (T units of 8 vec4s).
func matvecWGBytes(d tmplData) int {
	n := 4 * d.RedSize
	if !d.Plain {
		n += 128 * d.XU
	}
	if d.MergeX {
		n += 8 * MatvecMergeXMaxHeads
	}
	return n
}

// MatvecMergeXMaxHeads is the most attention heads a Key.MergeX matvec
// merges (its per-head M and 1/L live in workgroup memory).
const MatvecMergeXMaxHeads = 64

// resolveXU fills or checks k.XU, the x units a matvec stages per barrier
// round (Key.XU); Build checks the workgroup memory it implies.
func resolveXU(k *Key) error {
	t := k.WG * k.RPT / k.Rows
	switch {
	case k.XU == 0:
		k.XU = t
	case !isPow2(k.XU) || k.XU < t:
		return &KeyError{*k, "XU", fmt.Sprintf("%d is not a power of two >= the %d threads per row group", k.XU, t)}
	}
	return nil
}

// resolveMatmulQKVTypes normalizes the K and V formats of a QKV matmul
// key: the zero value (f32, which the QKV matmul never mixes in) means Q's
// format, and a key whose three formats agree keeps WeightK and WeightV at
// zero, so that it is the same key as before mixed formats existed. Mixed
// keys take block formats only (Llama Q4_K_M: attn_v in q6_K beside q4_K Q
// and K in half the layers). Other keys have them cleared.
func resolveMatmulQKVTypes(k *Key) error {
	if !k.QKV {
		k.WeightK, k.WeightV = 0, 0
		return nil
	}
	if k.WeightK == gguf.TypeF32 {
		k.WeightK = k.Weight
	}
	if k.WeightV == gguf.TypeF32 {
		k.WeightV = k.Weight
	}
	if k.WeightK == k.Weight && k.WeightV == k.Weight {
		k.WeightK, k.WeightV = 0, 0
		return nil
	}
	for _, w := range []struct {
		t     gguf.GGMLType
		field string
	}{{k.Weight, "Weight"}, {k.WeightK, "WeightK"}, {k.WeightV, "WeightV"}} {
		if err := checkWeight(Key{Op: k.Op, Weight: w.t}); err != nil {
			return &KeyError{*k, w.field, fmt.Sprintf("unsupported weight type %s", w.t)}
		}
		if w.t.BlockSize() == 1 {
			return &KeyError{*k, w.field, fmt.Sprintf("a QKV matmul of mixed formats takes block formats, not %s", w.t)}
		}
	}
	return nil
}

// plainQKV reports whether the fused QKV matvec takes its plain path (x read
// straight from global memory beside 16-byte weight vectors, as
// matvec_plain): all three matrices f32, or all f16/bf16, so that one EPV
// (elements a vector) serves them. The staged path it replaces held every
// weight load behind an x staging round and its barrier (F16 decode).
func plainQKV(q, k, v gguf.GGMLType) bool {
	f32 := 0
	for _, t := range []gguf.GGMLType{q, k, v} {
		if t.BlockSize() != 1 {
			return false
		}
		if t == gguf.TypeF32 {
			f32++
		}
	}
	return f32 == 0 || f32 == 3
}

// qkvRopeCheck checks matvec_qkv's fused RoPE + KV write (Key.HeadDim > 0):
// an f32 or f16 cache, and rows per thread even so both rows of a pair are
// in one group (NEOX pairs too: Key.Neox takes the q and k rows in pair
// order). An f16 cache with NEOX wants the four group rows of two
// neighbouring pairs in one workgroup: Rows and HeadDim multiples of 4.
func qkvRopeCheck(k Key) error {
	if k.HeadDim == 0 {
		return nil
	}
	switch {
	case checkHeadDim(k) != nil:
		return checkHeadDim(k)
	case k.KV != gguf.TypeF32 && k.KV != gguf.TypeF16:
		return &KeyError{k, "KV", fmt.Sprintf("KV cache type %s is not f32 or f16", k.KV)}
	case k.RPT%2 != 0:
		return &KeyError{k, "RPT", fmt.Sprintf("%d rows per thread: RoPE in the QKV matvec wants it even", k.RPT)}
	case k.KV == gguf.TypeF16 && k.Neox && k.Rows%4 != 0:
		return &KeyError{k, "Rows", fmt.Sprintf("%d rows per workgroup: NEOX RoPE into an f16 cache wants a multiple of 4", k.Rows)}
	case k.KV == gguf.TypeF16 && k.Neox && k.HeadDim%4 != 0:
		return &KeyError{k, "HeadDim", fmt.Sprintf("%d: NEOX RoPE into an f16 cache wants a multiple of 4", k.HeadDim)}
	}
	return nil
}

// gqaLanes splits a GQA group of g query heads over the fewest workgroups
// of at most 4 (attn_decode_gqa.wgsl's vector lanes): subs workgroups of
// lanes heads, the last with fewer where g is not a multiple (g = 7: two
// of 4). g <= 1: one head, one workgroup.
func gqaLanes(g int) (lanes, subs int) {
	if g <= 1 {
		return 1, 1
	}
	subs = (g + 3) / 4
	return (g + subs - 1) / subs, subs
}

// CoopAttn reports whether attn_decode's Coop variant takes a head size,
// GQA group (1, or up to 16 for attn_decode_gqa.wgsl) and workgroup size
// (wg 0: the default 64).
func CoopAttn(headDim, group, wg int) bool {
	if wg == 0 {
		wg = 64
	}
	q := headDim / 4
	return group <= 16 && headDim%4 == 0 && q >= 1 && isPow2(q) && q <= wg
}

// wideAttnFits reports whether the wide decode attention kernel
// (attn_decode_wide.wgsl: TK keys a tile, WG/TK threads a key) divides a
// head of headDim (headDim/4 quads) evenly at wg threads.
func wideAttnFits(headDim, wg, tk int) bool {
	q := headDim / 4
	if headDim%4 != 0 || q == 0 || tk <= 0 || tk%4 != 0 || wg <= 0 || tk > wg || wg%tk != 0 || q > wg || wg%q != 0 {
		return false
	}
	return q%(wg/tk) == 0 && tk%(wg/q) == 0
}

// WideAttn reports whether the wide decode attention kernel takes a head
// of headDim at wg threads and tk keys a tile (shaders Key.TK on
// OpAttnDecode with Coop).
func WideAttn(headDim, wg, tk int) bool { return wideAttnFits(headDim, wg, tk) }

// TiledAttnPrefill reports whether the register-tiled prefill attention
// (Key.Coop on OpAttnPrefill, attn_prefill_tiled.wgsl) takes heads of this
// size: its p·V threads own 4 queries × HeadDim/16 dims (whole vec4s, so
// HeadDim a multiple of 64), and a score thread's q row lives in
// registers, so up to 128 the whole row; 256 (Gemma 3) splits the row
// in quarters among a query's 4 score threads (attnTiledSplit).
func TiledAttnPrefill(headDim int) bool {
	return headDim == 64 || headDim == 128 || headDim == 256
}

// attnTiledSplit reports whether the tiled prefill attention at this head
// size splits the score's dims among a query's 4 threads, which then add
// their partial scores through workgroup memory (a BC × WG f32 array).
func attnTiledSplit(headDim int) bool { return headDim > 128 }

// attnTiledBytes is the tiled prefill attention's workgroup memory: the
// f32 K/V tile (bc keys), the probability tile (bc keys x wg/4 queries),
// a float a thread and one a query, and with a split head the partial
// scores (bc x wg).
func attnTiledBytes(headDim, wg, bc int) int {
	n := 4*bc*headDim + 4*bc*wg/4 + 4*wg + wg
	if attnTiledSplit(headDim) {
		n += 4 * bc * wg
	}
	return n
}

// AttnTiledFits reports whether tiles of keys keys (a multiple of 4) fit
// the tiled prefill attention's workgroup memory at this head size and
// workgroup size (wg threads) within WebGPU's default 16 KiB.
func AttnTiledFits(headDim, wg, keys int) bool {
	return keys > 0 && keys%4 == 0 && attnTiledBytes(headDim, wg, keys) <= maxWorkgroupBytes
}

// AttnTiledKeys is the tiled prefill attention's keys per tile for a
// workgroup of wg threads (wg/4 queries): at most an 8 KiB f32 K (then V)
// tile, with the probability tile (keys x queries) and a float a thread
// (with a split head the partial scores, a float a key and thread)
// within 16 KiB beside it; a multiple of 4 (one a thread of a query).
// Head size 256: 8 keys at 64 and 128 threads, 4 at 256.
func AttnTiledKeys(headDim, wg int) int {
	if attnTiledSplit(headDim) {
		return max(4, min(2048/headDim, (4096-wg-wg/4)/(headDim+wg+wg/4))/4*4)
	}
	return max(4, min(2048/headDim, (4096-wg-wg/4)/(headDim+wg/4))/4*4)
}

// resolveAttnPrefillTiled checks and completes a Coop OpAttnPrefill key:
// WG (default 256) is 4 threads for each of WG/4 queries (64, 128 or
// 256); TK, when set, is the keys a tile (default AttnTiledKeys).
func resolveAttnPrefillTiled(k Key, attnResolve func(Key) (Key, error)) (Key, error) {
	if k.WG == 0 {
		k.WG = 256
	}
	if k.WG != 128 && k.WG != 256 && k.WG != 64 {
		return k, &KeyError{k, "WG", fmt.Sprintf("%d threads: the tiled prefill attention takes 64, 128 or 256 (4 a query)", k.WG)}
	}
	if k.SplitK != 0 {
		return k, &KeyError{k, "SplitK", "the tiled prefill attention always takes 4 threads a query"}
	}
	if !TiledAttnPrefill(k.HeadDim) {
		return k, &KeyError{k, "HeadDim", fmt.Sprintf("%d: the tiled prefill attention takes head sizes 64, 128 and 256", k.HeadDim)}
	}
	if k.TK != 0 && !AttnTiledFits(k.HeadDim, k.WG, k.TK) {
		return k, &KeyError{k, "TK", fmt.Sprintf("%d keys a tile: not a multiple of 4 whose tiles fit 16 KiB", k.TK)}
	}
	wg, tk := k.WG, k.TK
	k, err := attnResolve(k)
	k.WG, k.TK, k.Coop = wg, tk, true
	return k, err
}
