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
