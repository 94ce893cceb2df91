// Package enginehost is the engine behind the npm package's public API: the
// worker handlers for glue's engine messages (ModelLoadRequest, InfoRequest,
// TokenizeRequest, DetokenizeRequest, ChatTemplateRequest, GenerateRequest,
// UnloadRequest). wasm/main.go registers them with Register.
//
// A ModelLoadRequest carries the file's bytes or, in the browser, names
// where the worker reads it (loadNamed): an OPFS cache entry, a URL or
// Blobs the page posted; on WebGPU those weights stream in 4 MiB JS chunks
// into GPU buffers (LoadSource), never through wasm memory, with progress
// per chunk and a cancel point between chunks.
//
// A Host holds at most one loaded model and runs one request at a time:
// engine.Engine is not safe for concurrent use, so concurrent calls wait in
// line (a canceled call leaves the line without running). Generation runs
// on the loaded model's engine.Session: it keeps the tokens the KV cache
// holds and reuses the longest common prefix with the next prompt, so a
// chat's history is not recomputed every turn, and with contextShift a
// generation that fills the context drops half of what follows n_keep and
// goes on (llama.cpp's context shift).
//
// A request whose sampling always picks the top logit (temperature 0 or
// top_k 1, without bias, penalties or typical-p; engine.PlainGreedy) runs on
// engine.Greedy: the backend picks each token (on WebGPU an argmax kernel,
// the next step submitted before the token is read back) instead of the
// sampler chain over a logits row copied out for every token; tokens,
// events and endings are those of the chain.
//
// Other requests whose chain starts with top-k (1..64, no logit bias, no
// active penalties: sample.Sampler.Candidates) draw, on WebGPU, from the
// backend's top-k candidates (engine.CandidateSampler, EvalTopK: k ids and
// logits read back instead of the vocabulary row, sorted among k, not the
// vocabulary); the tokens are the whole-row chain's, seed for seed.
//
// A request with a Grammar (GBNF) or a JsonSchema (converted by
// sample/jsonschema) draws every token through grammar.Sampler, greedy
// included, on the whole logits row; each source is compiled once per
// model and the vocabulary trie built once per model (grammar.go).
//
// A load logs where its time went at debug level ("load phases (ms):
// ..."; engine.Info's LoadPhases plus the host's own steps).
//
// Errors carry the kinds the page's WebGGUFError codes are made from:
// "bad-file", "unsupported-model", "no-model", "context-full",
// "invalid-argument", "gpu-unavailable", "out-of-memory", "device-lost"
// (and "canceled" from the worker loop).
//
// A lost GPU device (a driver reset, a crashed GPU process, a destroyed
// device) fails the load or generation in flight with "device-lost" and
// frees the model (later calls get "no-model"); the next load opens a new
// device. An "auto" load whose device is lost midway moves to the CPU.
//
// The Host itself is plain Go and tested natively against llama.cpp's
// fixtures; the browser path is tested end to end by scripts/harness.
package enginehost
