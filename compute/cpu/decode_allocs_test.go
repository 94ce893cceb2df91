package cpu

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gen"
	"github.com/webgguf/webgguf/gguf"
)

// TestDecodeAllocatesLittle checks that a compiled decode step allocates
// no buffers, with the build's kernels and with the browser build's
// quantized-activation kernels: under wasm every allocation feeds a
// garbage collector that stops the only thread. What remains is the
// closure that each matrix product and attention node hands to
// parallelFor (~150 bytes each); a buffer (an activation row here is 1
// KiB, the logits 125 KiB) would break the bound of 256 bytes per such
// node. (At ~2.5 KiB per token against a heap holding the weights, this
// starts a collection every few ten thousand tokens.)
func TestDecodeAllocatesLittle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.gguf")
	c := gen.Config{Arch: "llama", NEmbd: 256, NLayer: 2, NHead: 4, NHeadKV: 2, NFF: 512, Ctx: 64,
		RopeTheta: 10000, NormEps: 1e-5, Tied: true, Type: "q4_k_m", Seed: 3, Vocab: "../../testdata/models/vocab-llama-spm.gguf"}
	if err := gen.GenerateFile(path, c); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.OpenPath(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, xq := range []bool{false, true} {
		restore := SetUseXQ(xq)
		p := compileDecode(t, f, 64, 1)
		ctx := context.Background()
		step := func(pos int) {
			if _, err := p.RunArgmax(ctx, compute.Step{Pos0: pos, Tokens: []int32{int32(5 + pos)}, OutRows: []int32{0}}); err != nil {
				t.Fatal(err)
			}
		}
		step(0)
		const steps = 20
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		for pos := 1; pos <= steps; pos++ {
			step(pos)
		}
		runtime.ReadMemStats(&m1)
		restore()
		bytes := float64(m1.TotalAlloc-m0.TotalAlloc) / steps
		allocs := float64(m1.Mallocs-m0.Mallocs) / steps
		parallel := 0
		for _, n := range p.g.Nodes {
			if n.Op == compute.OpMatMul || n.Op == compute.OpAttention {
				parallel++
			}
		}
		t.Logf("xq %v: %.1f allocations, %.0f bytes per decode step (%d parallel nodes)", xq, allocs, bytes, parallel)
		if allocs > float64(parallel)+1 || bytes > 256*float64(parallel) {
			t.Errorf("xq %v: %.1f allocations, %.0f bytes per decode step; want at most %d and %d", xq, allocs, bytes, parallel, 256*parallel)
		}
	}
}
