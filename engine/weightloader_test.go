package engine_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/compute/cpu"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/enginetest"
	"github.com/webgguf/webgguf/gguf"
)

// TestWeightLoaderReplacesFileStream loads tiny-llama-q8_0 with
// Options.LoadWeight reading the weights from a separate handle on the file
// (in odd-sized chunks, as a foreign source would), checks every weight went
// through it exactly once with its full size, and that greedy generation
// still equals llama.cpp's greedy ids.
func TestWeightLoaderReplacesFileStream(t *testing.T) {
	const name = "tiny-llama-q8_0"
	path := filepath.Join(enginetest.Testdata(), "models", name+".gguf")
	raw, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	f, err := gguf.OpenPath(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	be := cpu.New(1)
	seen := map[string]int64{}
	var lastDone, total int64
	load := func(ctx context.Context, w *compute.Tensor, ti *gguf.TensorInfo) error {
		seen[ti.Name] += ti.Size
		r := io.NewSectionReader(raw, f.DataOffset+int64(ti.Offset), ti.Size)
		return be.LoadWeight(w, ti.Size, func(fn func(off int64, chunk []byte) error) error {
			buf := make([]byte, 1000)
			for off := int64(0); off < ti.Size; {
				n, err := r.Read(buf)
				if n > 0 {
					if err := fn(off, buf[:n]); err != nil {
						return err
					}
					off += int64(n)
				}
				if err != nil && !errors.Is(err, io.EOF) {
					return err
				}
			}
			return nil
		})
	}
	e, err := engine.Load(context.Background(), f, engine.Options{NCtx: 512, Backend: be, LoadWeight: load,
		Progress: func(done, tot int64) { lastDone, total = done, tot }})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if len(seen) == 0 || lastDone != total || total == 0 {
		t.Fatalf("loader saw %d tensors; progress %d of %d", len(seen), lastDone, total)
	}
	for name, n := range seen {
		ti, _ := f.Tensor(name)
		if n != ti.Size {
			t.Errorf("%s: loaded %d bytes, want %d once", name, n, ti.Size)
		}
	}
	llama, _ := enginetest.Refs(t, name)
	judged := 0
	for _, p := range llama.Prompts {
		if len(p.Greedy) == 0 {
			continue
		}
		if err := e.Truncate(0); err != nil {
			t.Fatal(err)
		}
		var got []int32
		if err := e.Generate(context.Background(), p.IDs, len(p.Greedy), engine.Greedy{}, func(tok int32) bool {
			got = append(got, tok)
			return true
		}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, p.Greedy) {
			t.Errorf("%q: greedy %v, llama.cpp %v", p.Prompt, got, p.Greedy)
		}
		judged++
	}
	if judged == 0 {
		t.Fatal("no llama.cpp greedy continuation to compare with")
	}
}

// TestWeightLoaderErrorFailsLoad checks a failing loader fails Load with
// its error, naming the weight.
func TestWeightLoaderErrorFailsLoad(t *testing.T) {
	boom := errors.New("source gone")
	f, err := gguf.OpenPath(filepath.Join(enginetest.Testdata(), "models", "tiny-llama-q8_0.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = engine.Load(context.Background(), f, engine.Options{NCtx: 64, Backend: cpu.New(1),
		LoadWeight: func(context.Context, *compute.Tensor, *gguf.TensorInfo) error { return boom }})
	if !errors.Is(err, boom) {
		t.Fatalf("Load: %v, want the loader's error", err)
	}
}
