// Package engine is the Go API of webgguf: load a GGUF model onto a
// backend, evaluate token sequences (teacher-forced logits), generate.
//
//	f, _ := gguf.OpenPath("model.gguf")
//	e, _ := engine.Load(ctx, f, engine.Options{NCtx: 2048})
//	logits, _ := e.Eval(ctx, ids, engine.LogitsLast)
//	e.Generate(ctx, nil, 32, engine.Greedy{}, func(tok int32) bool { ...; return true })
//
// Load streams every weight through gguf.File.StreamTensor in 1 MiB chunks
// into the backend, allocates the KV cache once from n_ctx, and builds and
// compiles two graphs: one for single-token decode and one for prefill
// micro-batches of NUbatch tokens. Evaluation appends to the cache; Reset
// empties it. An Engine is not safe for concurrent use.
package engine
