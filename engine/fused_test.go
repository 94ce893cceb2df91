package engine_test

import (
	"bytes"
	"cmp"
	"context"
	"slices"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/compute/cpu"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/enginetest"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
	"github.com/webgguf/webgguf/model/modeltest"
)

// TestFusedWeightViews runs the fused-weights judgement on the CPU: a
// model whose q, k, v and gate, up are fused tensors, loaded through
// views, computes the unfused model's logits bit for bit.
func TestFusedWeightViews(t *testing.T) { enginetest.FusedViews(t, nil, nil) }

// TestFusedViewsThroughWeightLoader loads a fused model through
// Options.LoadWeight reading only ti.Offset and ti.Size of the raw file,
// as the browser's OPFS stream does: each view arrives as a TensorInfo of
// its own rows, the views of a fused tensor tile it exactly (every byte
// read once, nothing else read), and the logits equal the unfused
// model's.
func TestFusedViewsThroughWeightLoader(t *testing.T) {
	const spec = 1 // q4_K
	plain, _ := enginetest.FusedModels(t, spec)
	b, err := modeltest.Bytes(enginetest.FusedSpecs[spec])
	if err != nil {
		t.Fatal(err)
	}
	raw, err := modeltest.Fuse(b, enginetest.Fusions()...)
	if err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	be := cpu.New(1)
	read := map[string][][2]uint64{} // file tensor → byte ranges read
	load := func(_ context.Context, w *compute.Tensor, ti *gguf.TensorInfo) error {
		read[ti.Name] = append(read[ti.Name], [2]uint64{ti.Offset, ti.Offset + uint64(ti.Size)})
		if w.View != nil && (ti.Name != w.View.Source || ti.Ne[1] != uint64(w.Ne[1])) {
			t.Errorf("%v: loader got %s %v", w, ti.Name, ti.Ne)
		}
		base := f.DataOffset + int64(ti.Offset)
		return be.LoadWeight(w, ti.Size, func(fn func(off int64, chunk []byte) error) error {
			return fn(0, raw[base:base+ti.Size])
		})
	}
	var e *engine.Engine
	func() {
		defer model.SetFusions("llama", enginetest.Fusions()...)()
		e, err = engine.Load(context.Background(), f, engine.Options{NCtx: 32, Backend: be, LoadWeight: load})
	}()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	views := 0
	for name, rs := range read {
		ti, _ := f.Tensor(name)
		slices.SortFunc(rs, func(a, b [2]uint64) int { return cmp.Compare(a[0], b[0]) })
		end := ti.Offset
		for _, r := range rs {
			if r[0] != end {
				t.Errorf("%s: read %v, a gap or an overlap at %d", name, rs, end)
			}
			end = r[1]
		}
		if end != ti.Offset+uint64(ti.Size) {
			t.Errorf("%s: read %v, not its %d bytes from %d", name, rs, ti.Size, ti.Offset)
		}
		if len(rs) > 1 {
			views += len(rs)
		}
	}
	if n := enginetest.FusedSpecs[spec].NLayer; views != 5*n {
		t.Errorf("%d views loaded, want %d", views, 5*n)
	}
	ep, err := engine.Load(context.Background(), plain, engine.Options{NCtx: 32})
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	ids := []int32{3, 1, 4, 1, 5, 9, 2, 6}
	want, err := ep.Eval(context.Background(), ids, engine.LogitsAll)
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.Eval(context.Background(), ids, engine.LogitsAll)
	if err != nil {
		t.Fatal(err)
	}
	for p := range want {
		if !slices.Equal(got[p], want[p]) {
			t.Fatalf("pos %d: logits differ from the unfused model's", p)
		}
	}
}
