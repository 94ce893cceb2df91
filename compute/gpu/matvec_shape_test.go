package gpu_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model/modeltest"
	"github.com/webgguf/webgguf/shaders"
)

// TestMatvecShapeOverride decodes token by token with the matvec classes
// overridden (SetMatvecShape: the F16 model with the plain shapes the
// runtime tunes on hardware adapters, the q8_0 ones with others; the
// 32768-token vocabulary makes the lm head a "head" matvec) and judges
// each step's logits against the float64 reference and the run with the
// default shapes. A shape the kernel cannot take fails the load with a
// shaders.KeyError, which shows that the override reaches the compile.
func TestMatvecShapeOverride(t *testing.T) {
	base := modeltest.Spec{Arch: "llama", NEmbd: 256, NLayer: 2, NFF: 512, NVocab: 300, NHead: 4, NHeadKV: 2, HeadDim: 64}
	cases := []struct {
		typ    gguf.GGMLType
		vocab  int
		shapes string
	}{
		{gguf.TypeF16, 300, "swiglu=32:2:2,head=32:4:4,qkv=128:4:4,narrow=128:2:2"},
		{gguf.TypeQ8_0, 300, "swiglu=64:8:2,qkv=128:8:2:64,narrow=64:4:2"},
		{gguf.TypeQ8_0, 32768, "head=32:8:4,narrow=32:2:2"},
	}
	for i, c := range cases {
		s := base
		s.Type, s.NVocab, s.Seed = c.typ, c.vocab, uint64(500+i)
		t.Run(fmt.Sprintf("%s_vocab%d", c.typ, c.vocab), func(t *testing.T) {
			shapes, err := gpu.ParseMatvecShapes(c.shapes)
			if err != nil {
				t.Fatal(err)
			}
			f, ids, want := referenceCase(t, s, 10, 29, 3)
			decode := func(set bool) [][]float32 {
				be := gpu.New(device(t))
				if set {
					for cl, sh := range shapes {
						be.SetMatvecShape(cl, sh)
					}
				}
				e, err := engine.Load(context.Background(), f, engine.Options{NCtx: 64, NUbatch: 8, Backend: be})
				if err != nil {
					t.Fatal(err)
				}
				defer e.Close()
				var out [][]float32
				for p := range ids {
					l, err := e.Eval(context.Background(), ids[p:p+1], engine.LogitsLast)
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, l[0])
				}
				return out
			}
			def, got := decode(false), decode(true)
			for p := range ids {
				judgeVariant(t, fmt.Sprintf("pos %d: shapes %s", p, c.shapes), got[p], want[p], def[p], "default shapes")
			}
		})
	}
	t.Run("refused", func(t *testing.T) {
		s := base
		s.Type, s.Seed = gguf.TypeQ8_0, 509
		f, err := modeltest.Open(s)
		if err != nil {
			t.Fatal(err)
		}
		be := gpu.New(device(t))
		be.SetMatvecShape(gpu.MatvecSwiGLU, gpu.MatvecShape{WG: 32, Rows: 2, RPT: 3})
		e, err := engine.Load(context.Background(), f, engine.Options{NCtx: 64, NUbatch: 8, Backend: be})
		if err == nil {
			e.Close()
			t.Fatal("a matvec shape of 3 rows a thread loaded")
		}
		var ke *shaders.KeyError
		if !errors.As(err, &ke) {
			t.Fatalf("load error %v (%T) is not a shaders.KeyError", err, err)
		}
	})
}

func TestParseMatvecShapes(t *testing.T) {
	got, err := gpu.ParseMatvecShapes(" swiglu=32:2:2, head=32:4:4:16,narrow=128:2:2")
	if err != nil {
		t.Fatal(err)
	}
	want := map[gpu.MatvecClass]gpu.MatvecShape{
		gpu.MatvecSwiGLU: {WG: 32, Rows: 2, RPT: 2},
		gpu.MatvecHead:   {WG: 32, Rows: 4, RPT: 4, XU: 16},
		gpu.MatvecNarrow: {WG: 128, Rows: 2, RPT: 2},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if m, err := gpu.ParseMatvecShapes(""); err != nil || len(m) != 0 {
		t.Fatalf("empty spec: %v, %v", m, err)
	}
	for _, bad := range []string{"swiglu", "mlp=32:2:2", "swiglu=32:2", "swiglu=32:2:2:4:1", "swiglu=32:x:2", "swiglu=0:2:2", "swiglu=32:2:-1", "qkv=64:8:2,qkv=64:4:2"} {
		if _, err := gpu.ParseMatvecShapes(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
