package gguf

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// refTensor is one entry of testdata/ref/dequant.ref.json, written by
// llama.cpp's gguf-py (gguf.quants.dequantize) from the fixture models.
type refTensor struct {
	Name       string    `json:"name"`
	Type       string    `json:"type"`
	GGMLType   uint32    `json:"ggml_type"`
	Ne         []uint64  `json:"ne"`
	N          int64     `json:"n"`
	First      []float64 `json:"first"`
	Last       []float64 `json:"last"`
	Sum        float64   `json:"sum"`
	SumSq      float64   `json:"sumsq"`
	DataOffset int64     `json:"data_offset"` // absolute file offset of the tensor data
}

func loadDequantRef(t *testing.T, name string) map[string][]refTensor {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "ref", name))
	if err != nil {
		t.Fatal(err)
	}
	var ref map[string][]refTensor
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref) == 0 {
		t.Fatalf("%s lists no files", name)
	}
	return ref
}

// TestDequantizeMatchesLlamaCpp dequantizes every tensor listed in the
// reference (every file it names) and compares with llama.cpp's values:
// first 64 and last 16 elements bit-exact in float32, sum and sum of squares
// within 1e-6 relative.
func TestDequantizeMatchesLlamaCpp(t *testing.T) {
	seen := map[GGMLType]bool{}
	for file, tensors := range loadDequantRef(t, "dequant.ref.json") {
		t.Run(file, func(t *testing.T) { checkRefFile(t, file, tensors, seen) })
	}
	// The mixed fixture exists to cover every format; make sure it did.
	for _, typ := range []GGMLType{TypeF32, TypeF16, TypeBF16, TypeQ4_0, TypeQ4_1, TypeQ5_0, TypeQ5_1, TypeQ8_0,
		TypeQ2_K, TypeQ3_K, TypeQ4_K, TypeQ5_K, TypeQ6_K, TypeIQ4_NL, TypeIQ4_XS} {
		if !seen[typ] {
			t.Errorf("no reference tensor of type %s was checked", typ)
		}
	}
}

// TestDequantizeFamiliesMatchesLlamaCpp does the same for the second batch
// of fixtures (dequant-families.ref.json), over the files of it that
// testdata holds; the bitnet pair must be among them, for TQ1_0 and TQ2_0.
func TestDequantizeFamiliesMatchesLlamaCpp(t *testing.T) {
	seen := map[GGMLType]bool{}
	for file, tensors := range loadDequantRef(t, "dequant-families.ref.json") {
		if _, err := os.Stat(filepath.Join("..", "testdata", "models", file)); err != nil {
			continue // not copied into testdata (the reference covers the whole batch)
		}
		t.Run(file, func(t *testing.T) { checkRefFile(t, file, tensors, seen) })
	}
	for _, typ := range []GGMLType{TypeTQ1_0, TypeTQ2_0, TypeQ6_K} {
		if !seen[typ] {
			t.Errorf("no reference tensor of type %s was checked", typ)
		}
	}
}

func checkRefFile(t *testing.T, file string, tensors []refTensor, seen map[GGMLType]bool) {
	path := filepath.Join("..", "testdata", "models", file)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gf, err := OpenPath(path)
	if err != nil {
		t.Fatal(err)
	}
	defer gf.Close()
	if len(gf.Tensors) != len(tensors) {
		t.Errorf("the reader finds %d tensors, the reference lists %d", len(gf.Tensors), len(tensors))
	}
	for _, rt := range tensors {
		// The reader must agree with gguf-py on type, shape and where
		// the data is.
		ti, ok := gf.Tensor(rt.Name)
		if !ok || uint32(ti.Type) != rt.GGMLType || fmt.Sprint(ti.Ne) != fmt.Sprint(rt.Ne) || gf.DataOffset+int64(ti.Offset) != rt.DataOffset {
			t.Fatalf("%s: reader says %+v (data section at %d), reference type %d ne %v at %d", rt.Name, ti, gf.DataOffset, rt.GGMLType, rt.Ne, rt.DataOffset)
		}
		typ := GGMLType(rt.GGMLType)
		if !equalFold(typ.String(), rt.Type) {
			t.Fatalf("%s: type id %d is %s here, %s in the reference", rt.Name, rt.GGMLType, typ, rt.Type)
		}
		size, ok := typ.RowBytes(rt.N)
		if !ok {
			t.Fatalf("%s: %d elements of %s is not whole blocks", rt.Name, rt.N, typ)
		}
		src := make([]byte, size)
		if _, err := f.ReadAt(src, rt.DataOffset); err != nil {
			t.Fatalf("%s: read %d bytes at %d: %v", rt.Name, size, rt.DataOffset, err)
		}
		got, err := Dequantize(typ, src, int(rt.N))
		if err != nil {
			t.Fatalf("%s: %v", rt.Name, err)
		}
		checkAgainstRef(t, rt, got)
		seen[typ] = true
	}
}

func checkAgainstRef(t *testing.T, rt refTensor, got []float32) {
	t.Helper()
	if len(rt.First) != 64 && int64(len(rt.First)) != min(64, rt.N) {
		t.Fatalf("%s: reference has %d first values", rt.Name, len(rt.First))
	}
	for i, want := range rt.First {
		if got[i] != float32(want) {
			t.Errorf("%s[%d] = %g, llama.cpp %g", rt.Name, i, got[i], float32(want))
		}
	}
	base := len(got) - len(rt.Last)
	for i, want := range rt.Last {
		if got[base+i] != float32(want) {
			t.Errorf("%s[%d] = %g, llama.cpp %g", rt.Name, base+i, got[base+i], float32(want))
		}
	}
	var sum, sumsq float64
	for _, v := range got {
		sum += float64(v)
		sumsq += float64(v) * float64(v)
	}
	if !relClose(sum, rt.Sum, 1e-6) {
		t.Errorf("%s: sum %.10g, llama.cpp %.10g", rt.Name, sum, rt.Sum)
	}
	if !relClose(sumsq, rt.SumSq, 1e-6) {
		t.Errorf("%s: sum of squares %.10g, llama.cpp %.10g", rt.Name, sumsq, rt.SumSq)
	}
}

// relClose reports |a-b| <= tol·|b|.
func relClose(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Abs(b) }

// TestQuantizeReproducesTQFixtures: quantizing the dequantized weights of
// llama-quantize's TQ1_0 and TQ2_0 fixture files gives back the files'
// bytes, block for block.
func TestQuantizeReproducesTQFixtures(t *testing.T) {
	for _, name := range []string{"tiny-bitnet-tq1_0", "tiny-bitnet-tq2_0"} {
		f, err := OpenPath(filepath.Join("..", "testdata", "models", name+".gguf"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		n := 0
		for i := range f.Tensors {
			ti := &f.Tensors[i]
			if ti.Type != TypeTQ1_0 && ti.Type != TypeTQ2_0 {
				continue
			}
			raw, err := f.ReadTensor(ti)
			if err != nil {
				t.Fatal(err)
			}
			ne := int(ti.Ne[0] * ti.Ne[1])
			vals, err := Dequantize(ti.Type, raw, ne)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Quantize(ti.Type, vals)
			if err != nil {
				t.Fatal(err)
			}
			if string(again) != string(raw) {
				t.Errorf("%s %s: our quantizer does not reproduce llama-quantize's bytes", name, ti.Name)
			}
			n++
		}
		if n != 28 { // 4 layers × 7 projections
			t.Errorf("%s: %d ternary tensors, want 28", name, n)
		}
	}
}
