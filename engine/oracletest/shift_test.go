package oracletest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/gen"
)

// TestShiftLiveAgainstLlamaCpp: after a context shift (llama.cpp's
// seq_rm of keep..keep+discard, seq_add of −discard after it, its K-shift
// re-rotating the cached keys), greedy generation on the CPU backend gives
// llama.cpp's tokens, on generated models with normal and NeoX RoPE, GQA,
// partial rotary with LongRoPE factors (phi3) and a layer without RoPE
// (smollm3). A sliding-window model whose layers keep rings is refused
// with a *ShiftError.
func TestShiftLiveAgainstLlamaCpp(t *testing.T) {
	_, c := startOracle(t)
	dir := t.TempDir()
	shapes := append(slices.Clone(oracleShapes), gen.Config{Arch: "phi3", NEmbd: 256, NLayer: 2, NHead: 4, NHeadKV: 2, NFF: 384, RopeDim: 32, Type: "q8_0"})
	for _, i := range []int{0, 1, 4, 5, 6, 7, 8, 9} {
		cfg := shapeConfig(shapes[i], i, "shift")
		t.Run(fmt.Sprintf("%d_%s_%s", i, cfg.Arch, cfg.Type), func(t *testing.T) {
			path := filepath.Join(dir, cfg.Name+".gguf")
			e, _ := loadGenerated(t, path, cfg, engine.Options{NCtx: 64, NUbatch: 8})
			ids := []int32{1}
			for j := range 39 {
				ids = append(ids, int32(300+(j*997)%3500))
			}
			const keep, discard, n = 5, 17, 12
			if _, err := e.Eval(context.Background(), ids[:len(ids)-1], engine.LogitsNone); err != nil {
				t.Fatal(err)
			}
			err := e.Shift(keep, discard)
			if cfg.Window > 0 || cfg.CtxOrig > 0 {
				// Rings have overwritten what a shifted window would
				// see; LongRoPE keys are not shifted as llama.cpp does.
				var se *engine.ShiftError
				if !errors.As(err, &se) {
					t.Fatalf("shift: %v, want a *ShiftError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Pos() != len(ids)-1-discard {
				t.Fatalf("pos %d after the shift, want %d", e.Pos(), len(ids)-1-discard)
			}
			m, err := c.Load(path, false)
			if err != nil {
				t.Fatal(err)
			}
			want, llamaRows, err := c.Shift(m, ids, keep, discard, n)
			if err != nil {
				t.Fatal(err)
			}
			// Ours teacher-forced on llama.cpp's tokens, so that every
			// row is drawn from the same context.
			var ours [][]float32
			in := ids[len(ids)-1]
			for step := range want {
				rows, err := e.Eval(context.Background(), []int32{in}, engine.LogitsLast)
				if err != nil {
					t.Fatal(err)
				}
				ours = append(ours, rows[0])
				in = want[step]
			}
			// The noise between the two implementations: both evaluate the
			// prompt with the dropped tokens taken out, from scratch.
			compact := append(slices.Clone(ids[:keep]), ids[keep+discard:]...)
			e.Reset()
			oursCompact, err := e.Eval(context.Background(), compact, engine.LogitsLast)
			if err != nil {
				t.Fatal(err)
			}
			llamaCompact, err := c.Logits(m, compact, false)
			if err != nil {
				t.Fatal(err)
			}
			dBase := maxDiff(oursCompact[0], llamaCompact[0])
			// How far a shifted cache is from a recomputed one: the
			// difference the test must be able to see.
			dSem := maxDiff64(llamaRows[0], llamaCompact[0])
			// The fixtures' rule, live: llama.cpp's own deviation sets the
			// tolerance. Greedy tokens must agree wherever llama.cpp's top
			// two logits are further apart than it (random weights make
			// near ties common).
			tol := 2*dBase + 0.05
			var dShift float64
			for step, row := range ours {
				d := maxDiff(row, llamaRows[step])
				dShift = max(dShift, d)
				if got := int32(engine.Argmax(row)); got != want[step] && margin(llamaRows[step]) > tol {
					t.Errorf("step %d: our greedy token %d, llama.cpp's %d (its margin %.3g)", step, got, want[step], margin(llamaRows[step]))
				}
			}
			t.Logf("max |Δlogit| after the shift %.4g (tolerance %.4g); recomputed ours vs llama.cpp %.4g; llama.cpp shifted vs recomputed %.4g", dShift, tol, dBase, dSem)
			if dShift > tol {
				t.Errorf("logits after the shift differ from llama.cpp's by %.4g, more than %.4g", dShift, tol)
			}
			if dSem < 5*dShift {
				t.Errorf("a recomputed context is only %.4g from the shifted one: the test cannot tell them apart", dSem)
			}
		})
	}
}

func maxDiff(a []float32, b []float64) float64 {
	var d float64
	for i := range a {
		d = max(d, math.Abs(float64(a[i])-b[i]))
	}
	return d
}

func maxDiff64(a, b []float64) float64 {
	var d float64
	for i := range a {
		d = max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// margin is the gap between a row's two largest values.
func margin(row []float64) float64 {
	a, b := math.Inf(-1), math.Inf(-1)
	for _, v := range row {
		if v > a {
			a, b = v, a
		} else if v > b {
			b = v
		}
	}
	return a - b
}
