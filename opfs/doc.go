// Package opfs is the browser model cache in the Origin Private File System
// (OPFS) and the loader that streams weights to the GPU in 1 MiB chunks
// without the bytes entering Go memory. It runs in the engine's dedicated
// worker (GOOS=js), where OPFS sync access handles are available.
//
// Layout under the origin's OPFS root:
//
//	webgguf/models/<key>/00000.gguf …   committed shards
//	webgguf/models/<key>/meta.json      commit record (Meta), written last
//	webgguf/partial/<key>/00000.part    download in progress
//	webgguf/partial/<key>/00000.json    its resume record (Partial)
//
// An entry exists only when its meta.json exists (meta.json is written to a
// temporary name and moved into place as the last step of a commit), so an
// interrupted, aborted or failed download never shows up as cached; partial
// files stay for a later Range resume unless the download was aborted or
// failed for a reason other than the network (quota, integrity, HTTP status).
//
// The browser side (cache_js.go, download_js.go, loader_js.go) is driven by
// the worker handlers in handlers_js.go (glue messages Opfs*). The pure-Go
// parts — metadata validation, resume decisions, chunk placement — build
// everywhere and are unit-tested natively; the browser parts are tested end
// to end in headless Chromium by scripts/harness (opfs_e2e_test.go).
package opfs
