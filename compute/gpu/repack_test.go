package gpu_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/shaders"
)

// The repack before compilation rewrites exactly the weights with a packed
// layout, on the GPU, into shaders.Pack's bytes; ReadWeight still returns
// the file's bytes. (That the kernels read the packed bytes right is the
// fixture and shape suites' job: their q4_0, q8_0 and q6_K weights are
// packed.)
func TestRepackWeights(t *testing.T) {
	be := gpu.New(device(t))
	defer be.Close()
	r := rand.New(rand.NewPCG(rand.Uint64(), 2))
	type tc struct {
		t      *compute.Tensor
		packed bool
	}
	cases := []tc{
		{compute.NewWeight("q4", gguf.TypeQ4_0, 512, 9), true},
		{compute.NewWeight("q8", gguf.TypeQ8_0, 256, 5), true},
		{compute.NewWeight("q8odd", gguf.TypeQ8_0, 96, 5), false},  // K not a multiple of 128
		{compute.NewWeight("q4rag", gguf.TypeQ4_0, 1152, 5), true}, // ragged rows (8m+4 blocks)
		{compute.NewWeight("q8rag", gguf.TypeQ8_0, 896, 3), true},
		{compute.NewWeight("q4k", gguf.TypeQ4_K, 256, 3), false},
		{compute.NewWeight("q6k", gguf.TypeQ6_K, 2048, 3), true},
		{compute.NewWeight("q6kodd", gguf.TypeQ6_K, 768, 2), false}, // K not a multiple of 2048
	}
	data := map[*compute.Tensor][]byte{}
	for _, c := range cases {
		rb, _ := c.t.Type.RowBytes(int64(c.t.Ne[0]))
		b := make([]byte, rb*int64(c.t.Ne[1]))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		data[c.t] = b
		if err := be.LoadWeight(c.t, int64(len(b)), func(fn func(int64, []byte) error) error { return fn(0, b) }); err != nil {
			t.Fatal(err)
		}
	}
	if err := gpu.PackAll(be); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range cases {
		want := data[c.t]
		if c.packed {
			var err error
			if want, err = shaders.Pack(c.t.Type, c.t.Ne[0], want); err != nil {
				t.Fatal(err)
			}
		}
		raw, err := gpu.ReadRaw(ctx, be, c.t)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(raw, want) {
			t.Errorf("%s: stored bytes are not the %s layout", c.t.Name, map[bool]string{true: "packed", false: "file"}[c.packed])
		}
		got, err := gpu.ReadWeight(ctx, be, c.t)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data[c.t]) {
			t.Errorf("%s: ReadWeight differs from the loaded bytes", c.t.Name)
		}
	}
}
