package shaders

import (
	"testing"

	"github.com/webgguf/webgguf/gguf"
)

// Every shape MatvecTuned picks builds, for every format and epilogue the
// runtime combines it with (SwiGLU with the fused norm is the largest in
// workgroup memory), and keys that set a shape keep it.
func TestMatvecTunedBuilds(t *testing.T) {
	shapes := [][2]int{{2048, 8192}, {8192, 2048}, {128256, 2048}, {2048, 2048}, {896, 4864}}
	for _, typ := range WeightTypes {
		for _, sh := range shapes {
			for _, k := range []Key{
				{Op: OpMatvec, Weight: typ},
				{Op: OpMatvec, Weight: typ, SwiGLU: true, Norm: typ.BlockSize() > 1, Packed: true},
				{Op: OpMatvec, Weight: typ, Bias: true, Residual: true},
				{Op: OpMatvecQKV, Weight: typ, WeightK: typ, WeightV: gguf.TypeQ6_K, Norm: true, Bias: true},
			} {
				tk := MatvecTuned(k, sh[0], sh[1])
				if tk.WG == 0 || tk.Rows == 0 || tk.RPT == 0 {
					t.Fatalf("%v at %v: no shape chosen", k, sh)
				}
				if _, err := Build(tk); err != nil {
					t.Errorf("%v at %dx%d: %v", tk, sh[0], sh[1], err)
				}
			}
		}
	}
	k := Key{Op: OpMatvec, Weight: gguf.TypeQ4_0, WG: 32}
	if got := MatvecTuned(k, 8192, 2048); got != k {
		t.Errorf("MatvecTuned changed a key that sets WG: %v", got)
	}
}
