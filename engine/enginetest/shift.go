package enginetest

import (
	"context"
	"slices"
	"testing"

	"github.com/webgguf/webgguf/engine"
)

// ShiftLoop is llama.cpp's generation loop with context shift (tools/main),
// written out on e with single evaluations and Engine.Shift: before each
// decode, if n_past + pending ≥ nctx, it drops n_discard = (n_past −
// nkeep)/2 positions after nkeep and shifts the rest down. It returns the
// first n greedy tokens after prompt, what a session with ContextShift
// must give.
func ShiftLoop(t testing.TB, e *engine.Engine, prompt []int32, nctx, nkeep, n int) []int32 {
	t.Helper()
	var out []int32
	embd, npast := slices.Clone(prompt), 0
	for len(out) < n {
		if npast+len(embd) >= nctx {
			nd := (npast - nkeep) / 2
			if err := e.Shift(nkeep, nd); err != nil {
				t.Fatal(err)
			}
			npast -= nd
		}
		rows, err := e.Eval(context.Background(), embd, engine.LogitsLast)
		if err != nil {
			t.Fatal(err)
		}
		npast += len(embd)
		tok := int32(engine.Argmax(rows[0]))
		out = append(out, tok)
		embd = []int32{tok}
	}
	return out
}
