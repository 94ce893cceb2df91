// Package engine is the Go API of webgguf: load a GGUF model onto a
// backend, evaluate token sequences (teacher-forced logits), generate.
//
//	f, _ := gguf.OpenPath("model.gguf")
//	e, _ := engine.Load(ctx, f, engine.Options{NCtx: 2048})
//	tok, _ := e.Tokenizer()
//	ids, _ := tok.Encode("Once upon a time", true, true)
//	logits, _ := e.Eval(ctx, ids, engine.LogitsAll) // teacher-forced
//	e.Reset()
//	e.Generate(ctx, ids, 32, engine.Greedy{}, func(t int32) bool { fmt.Print(tok.Piece(t, false)); return true })
//
// A Session (session.go) is the conversation loop on top: it keeps the
// tokens the cache holds, reuses the longest common prefix of the next
// prompt, drives a sampler, ends at end-of-generation tokens and stop
// strings, detokenizes incrementally, shifts a full context as llama.cpp
// does (Engine.Shift) and saves or restores itself (state.go). The CLI's
// chat and the browser worker both run on it.
//
// Load streams every weight through gguf.File.StreamTensor in 1 MiB chunks
// into the backend, allocates the KV cache once from n_ctx, and builds and
// compiles two graphs: one for single-token decode and one for prefill
// micro-batches of NUbatch tokens. Evaluation appends to the cache; Reset
// empties it. An Engine is not safe for concurrent use.
//
// An embedding model (bert) has no logits: Embed and EmbedIDs return the
// pooled, un-normalized sequence embedding as llama_get_embeddings_seq
// does, and Eval/Generate give a *ModeError (as EmbedIDs does on a
// generative model).
package engine
