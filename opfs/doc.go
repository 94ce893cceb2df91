// Package opfs is the browser model cache in the Origin Private File System
// (OPFS) and the readers that stream weights to the GPU in chunks without
// the bytes entering Go memory (NewStreamer: 4 MiB chunks on the engine's
// load path in worker/enginehost; Load: 1 MiB by default). It runs in the
// engine's dedicated worker (GOOS=js), where OPFS sync access handles are
// available; Register installs its glue handlers (Opfs* messages) on the
// worker's Mux.
//
// Layout under the origin's OPFS root:
//
//	webgguf/models/<key>/00000.gguf …   committed shards
//	webgguf/models/<key>/meta.json      commit record (Meta), written last
//	webgguf/partial/<key>/00000.part    download in progress
//	webgguf/partial/<key>/00000.json    its resume record (Partial)
//
// Download streams fetch bodies into sync access handles (shards in
// parallel, bounded), with progress; a dropped connection is resumed with a
// Range request carrying If-Range (a strong ETag, else Last-Modified), and
// Decide accepts only a 206 that continues exactly where the partial file
// ends — anything else restarts from byte 0. An entry exists only when its
// meta.json exists (written to a temporary name and moved into place as the
// last step of a commit, after the size and optional SHA-256 checks), so an
// interrupted, aborted or failed download never shows up as cached; nor does
// a file that DownloadOptions.Check refuses (the engine's check, set with
// SetModelCheck: GGUF header, tensor table and a supported architecture,
// so an HTML error page or a truncated file is never cached). Partial
// files stay for a later resume after network failures and are removed
// after aborts and other failures (quota, integrity, HTTP).
//
// The sources feed the engine's loader (worker/enginehost through
// TensorStream). The test engine (build tag webgguf_test) also has this
// package's own GPU loader and first-token diagnostics: Load parses the GGUF
// metadata through a Source's io.ReaderAt (those bytes do cross into Go),
// plans GPU buffers with webgpu.NewPlan, and copies every tensor through one
// reused 1 MiB JS Uint8Array into queue.writeBuffer. Sources: a cache entry through sync access handles
// (Entry.Source), the same entry or user-picked Files as Blobs (slice reads;
// pages post Files to the worker with BlobMessage), or URLs without caching
// (URLSource: Range requests for metadata, one sequential stream for data).
// Cache.OpenModel (test engine) gives consumers of *gguf.File (engine.Load)
// the entry read through OPFS.
//
// Go's js.Value table keeps every JS object Go has touched alive until Go's
// collector runs, and Go's heap hardly grows while bytes stream through JS,
// so downloads and loads run the collector every few tens of MiB (releaseJS).
//
// Errors are *Error with a Kind ("quota", "network", "http", "integrity",
// "not_found", "busy", "invalid", "unsupported", "format", "gpu"), reported
// to the page as "opfs.<kind>".
//
// The pure-Go parts (metadata validation, resume decisions, chunk placement)
// are unit-tested natively; the browser parts end to end in headless
// Chromium by scripts/harness (TestOPFSCacheE2E, BenchmarkOPFSLoad).
package opfs
