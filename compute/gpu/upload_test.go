package gpu_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/gguf"
)

// TestLoadWeightOddChunks streams a q8_0 weight whose size is not a
// multiple of 4 in chunks of odd sizes and reads the buffer back: every
// byte must arrive, whatever the chunk alignment.
func TestLoadWeightOddChunks(t *testing.T) {
	d := device(t)
	be := gpu.New(d)
	defer be.Close()
	w := compute.NewWeight("w", gguf.TypeQ8_0, 32, 7) // 7 rows x 34 bytes = 238
	data := make([]byte, 238)
	r := rand.New(rand.NewPCG(rand.Uint64(), 1))
	for i := range data {
		data[i] = byte(1 + r.IntN(255))
	}
	sizes := []int{3, 1, 5, 64, 2, 163}
	err := be.LoadWeight(w, int64(len(data)), func(fn func(int64, []byte) error) error {
		off := 0
		for _, n := range sizes {
			if err := fn(int64(off), data[off:off+n]); err != nil {
				return err
			}
			off += n
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := gpu.ReadWeight(context.Background(), be, w)
	if err != nil {
		t.Fatal(err)
	}
	for i := range data {
		if got[i] != data[i] {
			t.Fatalf("byte %d: %d, streamed %d", i, got[i], data[i])
		}
	}
}

// TestLoadWeightErrors: wrong sizes, out-of-order and short streams and
// double loads are typed errors naming the tensor.
func TestLoadWeightErrors(t *testing.T) {
	be := gpu.New(device(t))
	defer be.Close()
	w := compute.NewWeight("blk.0.attn_q.weight", gguf.TypeQ8_0, 32, 2)
	chunk := make([]byte, 68)
	for i := range chunk {
		chunk[i] = byte(i + 1)
	}
	cases := map[string]struct {
		size int64
		src  compute.Stream
	}{
		"size":  {67, func(fn func(int64, []byte) error) error { return fn(0, chunk) }},
		"order": {68, func(fn func(int64, []byte) error) error { return fn(4, chunk[:64]) }},
		"short": {68, func(fn func(int64, []byte) error) error { return fn(0, chunk[:60]) }},
		"long":  {68, func(fn func(int64, []byte) error) error { _ = fn(0, chunk); return fn(68, chunk[:4]) }},
	}
	for name, c := range cases {
		err := be.LoadWeight(w, c.size, c.src)
		var ge *gpu.Error
		if !errors.As(err, &ge) || ge.Tensor != w.Name {
			t.Errorf("%s: got %v, want *gpu.Error naming %s", name, err, w.Name)
		}
	}
	ok := func(fn func(int64, []byte) error) error { return fn(0, chunk) }
	if err := be.LoadWeight(w, 68, ok); err != nil {
		t.Fatal(err)
	}
	if err := be.LoadWeight(w, 68, ok); err == nil {
		t.Error("second load of the same weight accepted")
	}
	// A graph using a weight that was never loaded does not compile.
	g := compute.NewGraph(1, 1)
	other := compute.NewWeight("token_embd.weight", gguf.TypeQ8_0, 32, 4)
	x := g.GetRows(other)
	if err := g.SetLogits(g.MatMul(w, g.SelectRows(x), nil)); err != nil {
		t.Fatal(err)
	}
	var ge *gpu.Error
	if _, err := be.Compile(g); !errors.As(err, &ge) {
		t.Errorf("compile with a missing weight: %v", err)
	}
}
