package compute_test

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
)

// TestViewByteRange checks that a view's row range is the byte range that
// holds exactly those rows: the bytes ByteRange names in the quantized
// source equal the quantization of the view's rows alone, for plain and
// block types (q4_K's 256-element super-blocks included).
func TestViewByteRange(t *testing.T) {
	cases := []struct {
		typ      gguf.GGMLType
		ne0      int
		rowBytes int64
	}{
		{gguf.TypeF32, 48, 48 * 4},
		{gguf.TypeF16, 48, 48 * 2},
		{gguf.TypeQ8_0, 64, 2 * 34},
		{gguf.TypeQ4_0, 96, 3 * 18},
		{gguf.TypeQ4_K, 512, 2 * 144},
	}
	const rows = 7
	for _, c := range cases {
		t.Run(c.typ.String(), func(t *testing.T) {
			x := make([]float32, c.ne0*rows)
			for i := range x {
				x[i] = float32(math.Sin(float64(i) * 0.37))
			}
			data, err := gguf.Quantize(c.typ, x)
			if err != nil {
				t.Fatal(err)
			}
			src := compute.NewWeight("blk.0.attn_qkv.weight", c.typ, c.ne0, rows)
			if off, n, ok := src.ByteRange(); !ok || off != 0 || n != int64(len(data)) {
				t.Fatalf("source ByteRange = %d, %d, %v; want 0, %d", off, n, ok, len(data))
			}
			for _, r := range [][2]int{{0, 3}, {3, 2}, {5, 2}, {0, rows}, {6, 1}} {
				v, err := compute.NewWeightView(src, "part", r[0], r[1])
				if err != nil {
					t.Fatal(err)
				}
				if v.Kind != compute.Weight || v.Type != c.typ || v.Ne != [3]int{c.ne0, r[1], 1} {
					t.Errorf("rows %v: view %v", r, v)
				}
				if v.View == nil || v.View.Source != src.Name || v.View.Row != r[0] {
					t.Errorf("rows %v: View %+v", r, v.View)
				}
				off, n, ok := v.ByteRange()
				if !ok || off != int64(r[0])*c.rowBytes || n != int64(r[1])*c.rowBytes {
					t.Fatalf("rows %v: ByteRange = %d, %d, %v; want %d, %d", r, off, n, ok, int64(r[0])*c.rowBytes, int64(r[1])*c.rowBytes)
				}
				alone, err := gguf.Quantize(c.typ, x[r[0]*c.ne0:(r[0]+r[1])*c.ne0])
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(data[off:off+n], alone) {
					t.Errorf("rows %v: bytes [%d, %d) are not those rows' quantization", r, off, off+n)
				}
			}
			// A view of a view is a view of the source.
			outer, _ := compute.NewWeightView(src, "outer", 2, 5)
			inner, err := compute.NewWeightView(outer, "inner", 1, 3)
			if err != nil {
				t.Fatal(err)
			}
			if inner.View.Source != src.Name || inner.View.Row != 3 {
				t.Errorf("view of a view: %+v, want rows of %s from 3", inner.View, src.Name)
			}
			if off, _, _ := inner.ByteRange(); off != 3*c.rowBytes {
				t.Errorf("view of a view: offset %d, want %d", off, 3*c.rowBytes)
			}
		})
	}
}

// TestViewErrors checks that views outside their source, or of tensors
// that are not rows of whole blocks, are refused with a *ViewError that
// names both tensors.
func TestViewErrors(t *testing.T) {
	q8 := compute.NewWeight("blk.1.ffn_up.weight", gguf.TypeQ8_0, 64, 10)
	cases := []struct {
		name      string
		src       *compute.Tensor
		row, rows int
	}{
		{"past the end", q8, 8, 3},
		{"negative row", q8, -1, 2},
		{"no rows", q8, 2, 0},
		{"negative rows", q8, 5, -2},
		{"overflowing rows", q8, 2, math.MaxInt},
		{"partial block", compute.NewWeight("odd.weight", gguf.TypeQ8_0, 48, 4), 0, 2},
		{"3-D", &compute.Tensor{Name: "w3.weight", Kind: compute.Weight, Type: gguf.TypeF32, Ne: [3]int{4, 4, 2}}, 0, 2},
		{"cache", compute.NewCache("k", 64, 16, 2), 0, 2},
		{"unknown type", compute.NewWeight("bad.weight", gguf.GGMLType(99), 64, 4), 0, 2},
	}
	for _, c := range cases {
		v, err := compute.NewWeightView(c.src, "blk.1.ffn_gate.weight", c.row, c.rows)
		var ve *compute.ViewError
		if !errors.As(err, &ve) {
			t.Errorf("%s: view %v, error %v; want a *ViewError", c.name, v, err)
			continue
		}
		if ve.Name != "blk.1.ffn_gate.weight" || ve.Source != c.src.Name {
			t.Errorf("%s: error names %q of %q", c.name, ve.Name, ve.Source)
		}
		t.Logf("%s: %v", c.name, err)
	}
	if _, err := compute.NewWeightView(nil, "x", 0, 1); err == nil {
		t.Error("view of nil succeeded")
	}
}

// TestViewInGraph checks that a view multiplies like any weight.
func TestViewInGraph(t *testing.T) {
	qkv := compute.NewWeight("blk.0.attn_qkv.weight", gguf.TypeQ8_0, 64, 96)
	g := compute.NewGraph(1, 1)
	x := g.GetRows(compute.NewWeight("token_embd.weight", gguf.TypeF32, 64, 10))
	for _, r := range [][2]int{{0, 64}, {64, 16}, {80, 16}} {
		v, err := compute.NewWeightView(qkv, "part", r[0], r[1])
		if err != nil {
			t.Fatal(err)
		}
		if y := g.MatMul(v, x, nil); y.Ne[0] != r[1] {
			t.Errorf("rows %v: product %v", r, y)
		}
	}
	if g.Err() != nil {
		t.Fatal(g.Err())
	}
}
