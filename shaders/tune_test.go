package shaders

import (
	"testing"

	"github.com/webgguf/webgguf/gguf"
)

// Every shape MatvecTuned picks builds, for every format and epilogue the
// runtime combines it with (SwiGLU with the fused norm is the largest in
// workgroup memory), and keys that set a shape keep it.
func TestMatvecTunedBuilds(t *testing.T) {
	shapes := [][2]int{{2048, 8192}, {8192, 2048}, {128256, 2048}, {2048, 2048}, {896, 4864}, {6912, 1152}}
	for _, typ := range WeightTypes {
		for _, sh := range shapes {
			for _, k := range []Key{
				{Op: OpMatvec, Weight: typ},
				{Op: OpMatvec, Weight: typ, SwiGLU: true, Norm: typ.BlockSize() > 1, Packed: true},
				{Op: OpMatvec, Weight: typ, SwiGLU: true, Norm: typ.BlockSize() > 1, Packed: true, Ragged: Ragged(typ, 1152), PostAdd: typ.BlockSize() > 1},
				{Op: OpMatvec, Weight: typ, Bias: true, Residual: true},
				{Op: OpMatvecQKV, Weight: typ, WeightK: typ, WeightV: gguf.TypeQ6_K, Norm: true, Bias: true},
			} {
				for _, maxWG := range []int{1024, 128} {
					tk := MatvecTuned(k, sh[0], sh[1], maxWG)
					if tk.WG == 0 || tk.Rows == 0 || tk.RPT == 0 || tk.WG > maxWG {
						t.Fatalf("%v at %v, max %d threads: shape %d:%d:%d", k, sh, maxWG, tk.WG, tk.Rows, tk.RPT)
					}
					if _, err := Build(tk); err != nil {
						t.Errorf("%v at %dx%d: %v", tk, sh[0], sh[1], err)
					}
				}
			}
		}
	}
	k := Key{Op: OpMatvec, Weight: gguf.TypeQ4_0, WG: 32}
	// The cap keeps threads per row and rows per thread: 256:8:2 -> 128:4:2.
	if got := MatvecTuned(Key{Op: OpMatvec, Weight: gguf.TypeQ4_0}, 2048, 8192, 128); got.WG != 128 || got.Rows != 4 || got.RPT != 2 {
		t.Errorf("capped shape %d:%d:%d, want 128:4:2", got.WG, got.Rows, got.RPT)
	}
	// The packed q4_0 lm head takes four rows per thread; q8_0 keeps 128:16:2.
	if got := MatvecTuned(Key{Op: OpMatvec, Weight: gguf.TypeQ4_0, Packed: true}, 128256, 2048, 256); got.WG != 128 || got.Rows != 32 || got.RPT != 4 {
		t.Errorf("packed q4_0 lm head shape %d:%d:%d, want 128:32:4", got.WG, got.Rows, got.RPT)
	}
	if got := MatvecTuned(Key{Op: OpMatvec, Weight: gguf.TypeQ8_0, Packed: true}, 128256, 2048, 256); got.WG != 128 || got.Rows != 16 || got.RPT != 2 {
		t.Errorf("packed q8_0 lm head shape %d:%d:%d, want 128:16:2", got.WG, got.Rows, got.RPT)
	}
	// Packed q4_0/q8_0 gate/up (SwiGLU or not) at K < 4096: 256:16:2 with XU = T.
	for _, sw := range []bool{false, true} {
		got := MatvecTuned(Key{Op: OpMatvec, Weight: gguf.TypeQ8_0, Packed: true, SwiGLU: sw}, 8192, 2048, 256)
		if got.WG != 256 || got.Rows != 16 || got.RPT != 2 || got.XU != 0 {
			t.Errorf("packed q8_0 8192x2048 swiglu=%v: shape %d:%d:%d:%d, want 256:16:2:0", sw, got.WG, got.Rows, got.RPT, got.XU)
		}
	}
	if got := MatvecTuned(k, 8192, 2048, 1024); got != k {
		t.Errorf("MatvecTuned changed a key that sets WG: %v", got)
	}
}
