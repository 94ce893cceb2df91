//go:build js && webgguf_test

package opfs

import (
	"context"
	"runtime"
	"time"

	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/glue"
	"github.com/webgguf/webgguf/worker"
)

// handleFirstToken measures a cached model's load() → first token: open
// the entry from OPFS, load it into the engine, evaluate the prompt and
// take the greedy token (which the e2e test compares with llama.cpp's).
func handleFirstToken(ctx context.Context, req *glue.OpfsFirstTokenRequest, _ *worker.Stream) (*glue.OpfsFirstTokenResponse, error) {
	if len(req.Prompt) == 0 {
		return nil, &Error{Kind: KindInvalid, Op: "first-token", Key: req.Key, Field: "prompt", Offset: -1, Msg: "empty"}
	}
	runtime.GC()
	before := WasmBytes()
	t0 := time.Now()
	ms := func() float64 { return float64(time.Since(t0).Microseconds()) / 1000 }
	c, err := shared(ctx)
	if err != nil {
		return nil, err
	}
	f, closeFile, err := c.OpenModel(ctx, req.Key)
	if err != nil {
		return nil, err
	}
	defer closeFile()
	out := &glue.OpfsFirstTokenResponse{OpenMs: ms(), Backend: "cpu"}
	nctx := int(req.NCtx)
	if nctx == 0 {
		nctx = max(256, len(req.Prompt)+1)
	}
	eng, err := engine.Load(ctx, f, engine.Options{NCtx: nctx})
	if err != nil {
		return nil, &Error{Kind: KindFormat, Op: "first-token", Key: req.Key, Offset: -1, Err: err}
	}
	defer eng.Close()
	out.LoadMs = ms()
	tok, err := eng.EvalArgmax(ctx, req.Prompt)
	if err != nil {
		return nil, &Error{Kind: KindInvalid, Op: "first-token", Key: req.Key, Field: "prompt", Offset: -1, Err: err}
	}
	out.Token, out.FirstMs = tok, ms()
	out.WasmGrowth = WasmBytes() - before
	return out, nil
}
