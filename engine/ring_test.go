package engine_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model/modeltest"
)

// A sliding-window layer keeps a ring of window + micro-batch - 1
// positions. Truncate to a prefix whose window the ring still holds
// continues exactly as a fresh evaluation; a prefix whose window was
// overwritten is refused with an OptionError (the callers then Reset and
// evaluate again), never answered with stale keys.
func TestRingCacheTruncate(t *testing.T) {
	f, err := modeltest.Open(modeltest.Spec{Arch: "gemma3", NEmbd: 64, NLayer: 3, NFF: 96, NVocab: 50, NHead: 4, NHeadKV: 1, HeadDim: 32,
		Type: gguf.TypeQ8_0, Window: 4, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Load(context.Background(), f, engine.Options{NCtx: 64, NUbatch: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ids := make([]int32, 40)
	for i := range ids {
		ids[i] = int32((i*7 + 3) % 50)
	}
	ctx := context.Background()
	want, err := e.Eval(ctx, ids, engine.LogitsAll)
	if err != nil {
		t.Fatal(err)
	}
	// Ring of 4+5-1 = 8 rows, 40 positions written: truncating to 38
	// needs positions 35..37, still held; truncating to 10 needs 7..9,
	// long overwritten.
	var oe *engine.OptionError
	if err := e.Truncate(10); !errors.As(err, &oe) {
		t.Fatalf("Truncate(10) after 40 positions through a ring of 8: %v, want an OptionError", err)
	}
	if e.Pos() != 40 {
		t.Fatalf("a refused Truncate moved the position to %d", e.Pos())
	}
	if err := e.Truncate(38); err != nil {
		t.Fatal(err)
	}
	got, err := e.Eval(ctx, ids[38:], engine.LogitsAll)
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range got {
		for j, v := range row {
			if d := math.Abs(float64(v - want[38+i][j])); d > 1e-4 {
				t.Fatalf("position %d logit %d: %g after Truncate, %g fresh", 38+i, j, v, want[38+i][j])
			}
		}
	}
	// Near the start the window is cut by position 0: truncating to 2
	// needs positions 0 and 1, overwritten by 8 and 9.
	e.Reset()
	if _, err := e.Eval(ctx, ids[:12], engine.LogitsLast); err != nil {
		t.Fatal(err)
	}
	if err := e.Truncate(2); !errors.As(err, &oe) {
		t.Fatalf("Truncate(2) after 12 positions: %v, want an OptionError", err)
	}
	if err := e.Truncate(0); err != nil {
		t.Fatalf("Truncate(0): %v", err)
	}
	if _, err := e.Eval(ctx, ids[:6], engine.LogitsLast); err != nil {
		t.Fatal(err)
	}
	if err := e.Truncate(2); err != nil {
		t.Fatalf("Truncate(2) after 6 positions: %v", err)
	}
}
