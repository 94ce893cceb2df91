package opfs

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/webgpu"
)

// TestEachChunkFillsThePlan streams random tensors through EachChunk into
// byte slices standing for GPU buffers, with the rules WebGPU enforces on
// writeBuffer (4-byte aligned offset and length), and checks that every
// part of every tensor lands where webgpu.NewPlan placed it.
func TestEachChunkFillsThePlan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	lim := webgpu.Limits{MaxBufferSize: 1 << 20, MaxStorageBufferBindingSize: 128 << 10, MinStorageBufferOffsetAlignment: 256}
	var specs []webgpu.TensorSpec
	var data [][]byte
	for i := range 40 {
		// Odd row sizes (the last write of a part pads) stay under the
		// binding limit; rows of 256-byte multiples get split into parts.
		rowBytes, rows := uint64(1+rng.IntN(300)), uint64(1+rng.IntN(300))
		if i%3 == 0 {
			rowBytes, rows = uint64(256*(1+rng.IntN(4))), uint64(1+rng.IntN(400))
		}
		specs = append(specs, webgpu.TensorSpec{Name: string(rune('a' + i%26)), Rows: rows, RowBytes: rowBytes})
		b := make([]byte, rows*rowBytes)
		for j := range b {
			b[j] = byte(1 + rng.IntN(255))
		}
		data = append(data, b)
	}
	plan, err := webgpu.NewPlan(lim, specs, webgpu.PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	split := 0
	for _, pl := range plan.Placements {
		if len(pl.Parts) > 1 {
			split++
		}
	}
	if split == 0 || len(plan.Buffers) < 2 {
		t.Fatalf("plan has %d split tensors in %d buffers: the test needs both", split, len(plan.Buffers))
	}
	bufs := make([][]byte, len(plan.Buffers))
	for i, n := range plan.Buffers {
		bufs[i] = make([]byte, n)
	}
	for _, chunk := range []int{4, 1000, 4096, 1 << 20} {
		for k := range specs {
			var parts []PartRange
			for _, p := range plan.Placements[k].Parts {
				s := p.FirstRow * specs[k].RowBytes
				parts = append(parts, PartRange{Start: s, End: s + p.Bytes, Buffer: p.Buffer, Offset: p.Offset})
			}
			err := EachChunk(parts, chunk, func(c Chunk) error {
				if c.Dst%4 != 0 || (c.Len+c.Pad)%4 != 0 || c.Len > chunk || c.Pad > 3 {
					t.Fatalf("chunk %+v breaks writeBuffer's rules", c)
				}
				w := append(append([]byte(nil), data[k][c.Src:c.Src+uint64(c.Len)]...), make([]byte, c.Pad)...)
				if c.Dst+uint64(len(w)) > uint64(len(bufs[c.Buffer])) {
					t.Fatalf("chunk %+v overflows buffer %d", c, c.Buffer)
				}
				copy(bufs[c.Buffer][c.Dst:], w)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		for k := range specs {
			for _, p := range plan.Placements[k].Parts {
				s := p.FirstRow * specs[k].RowBytes
				if !bytes.Equal(bufs[p.Buffer][p.Offset:p.Offset+p.Bytes], data[k][s:s+p.Bytes]) {
					t.Fatalf("chunk %d: tensor %d part %+v differs", chunk, k, p)
				}
			}
		}
	}
	if err := EachChunk(nil, 6, func(Chunk) error { return nil }); err == nil {
		t.Error("chunk size 6 accepted")
	}
}

func TestSpec(t *testing.T) {
	ti := &gguf.TensorInfo{Name: "w", Type: gguf.TypeQ4_K, Ne: []uint64{512, 3, 2}, Size: 6 * 288}
	rows, rb, err := Spec(ti)
	if err != nil || rows != 6 || rb != 288 { // q4_K: 144 bytes per 256 elements
		t.Fatalf("%d rows of %d: %v", rows, rb, err)
	}
	for _, bad := range []*gguf.TensorInfo{
		{Name: "partial block", Type: gguf.TypeQ4_K, Ne: []uint64{100}, Size: 144},
		{Name: "size", Type: gguf.TypeF32, Ne: []uint64{4, 4}, Size: 60},
		{Name: "no dims", Type: gguf.TypeF32},
		{Name: "huge", Type: gguf.TypeF32, Ne: []uint64{4, 1 << 40, 1 << 40}, Size: 16},
	} {
		if _, _, err := Spec(bad); err == nil {
			t.Errorf("%s accepted", bad.Name)
		}
	}
}
