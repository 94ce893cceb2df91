package glue

// This file is the schema: every message that crosses the page/worker
// boundary. A message is a struct whose blank first field carries the type id
// (`glue:"type=N"`) and whose fields carry field ids (`glue:"N"`). Field ids
// are never reused or renumbered; to retire a field, delete it and leave its
// id unused. Adding a field with a new id is backward and forward compatible:
// decoders skip ids they do not know and leave missing fields at zero.
//
// After editing this file run `go generate ./glue/...`: it rewrites the
// JavaScript codec and TypeScript types in jsbindings/src/ (and those of
// the test messages in jsbindings/test/), and TestGeneratedUpToDate fails
// until you do.
//
// Type ids 1–15 are protocol messages, 16–63 diagnostics and tests, 64 and up
// engine features. The test and diagnostics messages are registered by
// testmessages.go, not in messages below: the release engine.wasm lacks them.

//go:generate go run ./gen -out ../jsbindings

// Error ends a call that failed (frame kind KindError). Kind is a stable
// machine-readable class ("canceled", "decode.truncated", "not_found",
// "internal", ...), Message the human text, Cause and CauseKind describe the
// wrapped error, if any. Status is the HTTP status of a failed fetch (0:
// none), so that the page can tell a 404 from a 500 without parsing text.
type Error struct {
	_         struct{} `glue:"type=1"`
	Kind      string   `glue:"1"`
	Message   string   `glue:"2"`
	Cause     string   `glue:"3"`
	CauseKind string   `glue:"4"`
	Status    uint32   `glue:"5"`
}

// Cancel asks for the call with the frame's id to be canceled (frame kind KindCancel).
type Cancel struct {
	_      struct{} `glue:"type=2"`
	Reason string   `glue:"1"`
}

// Progress is a server-push event reporting how far a long call has come.
type Progress struct {
	_     struct{} `glue:"type=3"`
	Stage string   `glue:"1"`
	Done  int64    `glue:"2"`
	Total int64    `glue:"3"`
}

// Log is a server-push event carrying one log line from the engine.
type Log struct {
	_       struct{} `glue:"type=4"`
	Level   int32    `glue:"1"` // slog levels: -4 debug, 0 info, 4 warn, 8 error
	Message string   `glue:"2"`
}

// HelloRequest asks the engine what it is and which requests it serves.
type HelloRequest struct {
	_ struct{} `glue:"type=16"`
}

// HelloResponse answers HelloRequest.
type HelloResponse struct {
	_        struct{} `glue:"type=17"`
	Protocol uint32   `glue:"1"` // glue.Version of the engine
	Engine   string   `glue:"2"`
	Requests []uint32 `glue:"3"` // type ids that have a handler
}

// EchoRequest asks for its payload back, optionally after a delay; it is the
// health check and the transport benchmark.
type EchoRequest struct {
	_       struct{} `glue:"type=18"`
	Data    []byte   `glue:"1"`
	Text    string   `glue:"2"`
	DelayMs uint32   `glue:"3"`
}

// EchoResponse returns an EchoRequest's payload unchanged.
type EchoResponse struct {
	_    struct{} `glue:"type=19"`
	Data []byte   `glue:"1"`
	Text string   `glue:"2"`
}

// StreamRequest asks for Count StreamChunk events, IntervalMs apart, each
// carrying ChunkBytes bytes; it exercises server push and cancellation.
type StreamRequest struct {
	_          struct{} `glue:"type=20"`
	Count      uint32   `glue:"1"`
	IntervalMs uint32   `glue:"2"`
	ChunkBytes uint32   `glue:"3"`
}

// StreamChunk is one event of a StreamRequest; Data[i] is byte(Seq+i).
type StreamChunk struct {
	_    struct{} `glue:"type=21"`
	Seq  uint32   `glue:"1"`
	Data []byte   `glue:"2"`
}

// StreamDone ends a StreamRequest that ran to completion.
type StreamDone struct {
	_    struct{} `glue:"type=22"`
	Sent uint32   `glue:"1"`
}

// CrashRequest makes the test engine die: Mode "panic" panics on a
// goroutine, "exit" calls os.Exit(3), "throw" throws an uncaught JavaScript
// exception in the worker. Only the test engine (make wasm-test) serves it.
type CrashRequest struct {
	_    struct{} `glue:"type=23"`
	Mode string   `glue:"1"`
}

// StatsRequest asks the worker loop for its counters.
type StatsRequest struct {
	_ struct{} `glue:"type=24"`
}

// StatsResponse reports the worker loop's counters.
type StatsResponse struct {
	_        struct{} `glue:"type=25"`
	InFlight int32    `glue:"1"` // handlers running now
	Handled  int64    `glue:"2"` // requests finished, any outcome
	Canceled int64    `glue:"3"` // handlers that returned after their context was canceled
	Rejected int64    `glue:"4"` // frames that failed to decode
	NumGC    uint32   `glue:"5"` // Go garbage collections so far
	HeapSys  int64    `glue:"6"` // bytes of heap memory obtained from the system (wasm memory never shrinks)
	PauseNs  int64    `glue:"7"` // total stop-the-world GC pause time
}

// AllTypes has one field of every wire type; the codec conformance tests
// (Go ↔ Node, fuzzing) use it so every encoder and decoder path is exercised.
type AllTypes struct {
	_   struct{} `glue:"type=30"`
	B   bool     `glue:"1"`
	I32 int32    `glue:"2"`
	U32 uint32   `glue:"3"`
	I64 int64    `glue:"4"`
	F32 float32  `glue:"5"`
	F64 float64  `glue:"6"`
	S   string   `glue:"7"`
	Raw []byte   `glue:"8"`

	Bools    []bool    `glue:"9"`
	I32s     []int32   `glue:"10"`
	U32s     []uint32  `glue:"11"`
	I64s     []int64   `glue:"12"`
	F32s     []float32 `glue:"13"`
	F64s     []float64 `glue:"14"`
	Strings  []string  `glue:"15"`
	Raws     [][]byte  `glue:"16"`
	Appended uint32    `glue:"17"` // declared last on purpose: forward-compatibility tests drop it
}

// OpfsDownloadRequest downloads a model (ShardURLs: one URL, or every shard
// of a split model in order) into the OPFS cache under Key ("" = derived
// from the first URL). SHA256, when given, holds one lowercase hex digest per shard; a
// mismatch fails the download and leaves no entry. Parallel bounds the shards
// fetched at once (0 = 3).
type OpfsDownloadRequest struct {
	_         struct{} `glue:"type=80"`
	ShardURLs []string `glue:"1"`
	Key       string   `glue:"2"`
	SHA256    []string `glue:"3"`
	Parallel  uint32   `glue:"4"`
}

// OpfsDownloadResponse reports a committed cache entry.
type OpfsDownloadResponse struct {
	_         struct{} `glue:"type=81"`
	Key       string   `glue:"1"`
	Size      int64    `glue:"2"` // bytes of all shards
	Resumed   uint32   `glue:"3"` // Range requests that continued a partial shard
	Restarted uint32   `glue:"4"` // partial shards thrown away and fetched from byte 0
	Fetched   int64    `glue:"5"` // bytes received over the network by this call
}

// OpfsProgress is an event of a download or a load: Stage "download",
// "verify" or "load"; Shard of Shards; Done/Total bytes of that shard;
// AllDone/AllTotal of the whole call; BytesPerSec the call's average rate.
// A Total or AllTotal of -1 is unknown (a response without Content-Length).
type OpfsProgress struct {
	_           struct{} `glue:"type=82"`
	Stage       string   `glue:"1"`
	Key         string   `glue:"2"`
	Shard       uint32   `glue:"3"`
	Shards      uint32   `glue:"4"`
	Done        int64    `glue:"5"`
	Total       int64    `glue:"6"`
	AllDone     int64    `glue:"7"`
	AllTotal    int64    `glue:"8"`
	BytesPerSec float64  `glue:"9"`
}

// OpfsListRequest asks for the committed cache entries.
type OpfsListRequest struct {
	_ struct{} `glue:"type=83"`
}

// OpfsListResponse lists cache entries; entry i is Keys[i], Sizes[i] bytes,
// Metas[i] its metadata as JSON (urls, size, etag, date, hashes).
type OpfsListResponse struct {
	_     struct{} `glue:"type=84"`
	Keys  []string `glue:"1"`
	Sizes []int64  `glue:"2"`
	Metas []string `glue:"3"`
}

// OpfsDeleteRequest removes one cache entry and any partial download of it.
type OpfsDeleteRequest struct {
	_   struct{} `glue:"type=85"`
	Key string   `glue:"1"`
}

// OpfsDeleteResponse answers OpfsDeleteRequest.
type OpfsDeleteResponse struct {
	_       struct{} `glue:"type=86"`
	Existed bool     `glue:"1"`
}

// OpfsClearRequest removes every cache entry and partial download.
type OpfsClearRequest struct {
	_ struct{} `glue:"type=87"`
}

// OpfsClearResponse answers OpfsClearRequest.
type OpfsClearResponse struct {
	_       struct{} `glue:"type=88"`
	Removed uint32   `glue:"1"` // entries removed
}

// OpfsEstimateRequest asks for navigator.storage.estimate(), and calls
// navigator.storage.persist() first when Persist is set.
type OpfsEstimateRequest struct {
	_       struct{} `glue:"type=89"`
	Persist bool     `glue:"1"`
}

// OpfsEstimateResponse answers OpfsEstimateRequest.
type OpfsEstimateResponse struct {
	_         struct{} `glue:"type=90"`
	Usage     int64    `glue:"1"`
	Quota     int64    `glue:"2"`
	Persisted bool     `glue:"3"`
}

// OpfsLoadRequest streams a model's tensors into GPU buffers in ChunkBytes
// chunks (0 = 1 MiB): from the cache entry Key; from the network without
// caching when ShardURLs is set; from Files the page posted when BlobID is
// set; from the cache entry read as a File through Blob slices (Source
// "blob"). Source "stream" uploads only Verify, through opfs.TensorStream
// (the shape of compute/gpu's JSStream hook). Verify names a tensor to read
// back from the GPU; its SHA-256 is returned. The GPU buffers are freed
// before the response: this is the loader's own test and benchmark; the
// engine loads named sources through ModelLoadRequest.
type OpfsLoadRequest struct {
	_          struct{} `glue:"type=91"`
	Key        string   `glue:"1"`
	ShardURLs  []string `glue:"2"`
	Source     string   `glue:"3"`
	ChunkBytes uint32   `glue:"4"`
	Verify     string   `glue:"5"`
	BlobID     string   `glue:"6"` // load the Files/Blobs the page posted under this id (see opfs.PostedBlobs)
}

// OpfsLoadResponse reports a load: bytes and tensors uploaded, time, the
// growth of the Go runtime's linear memory, the peak JS heap seen (0 when
// the browser does not report it), and Verify's data range in its shard and
// the SHA-256 of the bytes read back from the GPU.
type OpfsLoadResponse struct {
	_            struct{} `glue:"type=92"`
	Bytes        int64    `glue:"1"`
	Tensors      uint32   `glue:"2"`
	Ms           float64  `glue:"3"`
	WasmGrowth   int64    `glue:"4"`
	JSHeapPeak   int64    `glue:"5"`
	VerifyShard  uint32   `glue:"6"`
	VerifyOffset int64    `glue:"7"`
	VerifySize   int64    `glue:"8"`
	VerifySHA256 string   `glue:"9"`
	GPUBuffers   uint32   `glue:"10"`
	WasmBytes    int64    `glue:"11"` // Go runtime's linear memory after the load
	LiveBefore   uint32   `glue:"12"` // loader GPU buffers alive when this load began (0 unless a load leaked)
}

// ModelLoadRequest loads a GGUF model for the engine handlers (ids 64-79),
// replacing any loaded one. The model comes from exactly one source:
//   - Key: the worker's OPFS cache entry (package opfs) of that key;
//   - URL: the network, without caching (the server must answer Range
//     requests); ShardURLs: every shard of a split GGUF model the same way, in
//     order;
//   - BlobID: the Files/Blobs the page posted to the worker under that id
//     (opfs.BlobMessage: a structured clone of a Blob copies no bytes);
//   - Data: the whole file's bytes (they pass through wasm memory).
//
// On the WebGPU backend the named sources stream each weight in 4 MiB JS
// chunks into its GPU buffer, so only the metadata enters wasm memory; the
// CPU backend computes from wasm memory and reads the weights into it.
// Name labels the model. NCtx is the context length (0 = the model's, at
// most 4096); Backend is "cpu", "webgpu" or "auto" ("" = auto). Progress
// events (stage "upload") report the weights moved into the backend.
type ModelLoadRequest struct {
	_         struct{} `glue:"type=64"`
	Data      []byte   `glue:"1"`
	Name      string   `glue:"2"`
	NCtx      uint32   `glue:"3"`
	Backend   string   `glue:"4"`
	Key       string   `glue:"5"`
	URL       string   `glue:"6"`
	BlobID    string   `glue:"7"`
	ShardURLs []string `glue:"8"`
}

// ModelInfo describes the loaded model; it answers ModelLoadRequest and
// InfoRequest (Loaded false: no model, the other fields are empty).
type ModelInfo struct {
	_               struct{} `glue:"type=65"`
	Loaded          bool     `glue:"1"`
	Name            string   `glue:"2"`
	Arch            string   `glue:"3"`
	Backend         string   `glue:"4"`
	NCtx            uint32   `glue:"5"`
	NCtxTrain       uint32   `glue:"6"`
	NVocab          uint32   `glue:"7"`
	NLayer          uint32   `glue:"8"`
	NEmbd           uint32   `glue:"9"`
	FileBytes       int64    `glue:"10"`
	BackendBytes    int64    `glue:"11"` // what the backend holds: weights, KV cache, arenas
	ChatTemplate    string   `glue:"12"` // the template used ("" when the ChatML fallback is)
	TemplateWarning string   `glue:"13"` // why the fallback is used, if it is
	Metadata        string   `glue:"14"` // the GGUF's scalar metadata as a JSON object
	LoadMs          float64  `glue:"15"`
	BOS             int32    `glue:"16"` // -1 when the model has none
	EOS             int32    `glue:"17"`
	Source          string   `glue:"18"` // where the load read the file: "cache", "url", "blob" or "bytes"
	WasmBytes       int64    `glue:"19"` // the engine's wasm linear memory after the load (0 outside the browser)
	WasmGrowth      int64    `glue:"20"` // how much the load grew it
}

// InfoRequest asks for the loaded model's ModelInfo.
type InfoRequest struct {
	_ struct{} `glue:"type=66"`
}

// TokenizeRequest tokenizes Text with the loaded model's tokenizer, exactly
// as llama.cpp's llama_tokenize(add_special, parse_special).
type TokenizeRequest struct {
	_            struct{} `glue:"type=67"`
	Text         string   `glue:"1"`
	AddSpecial   bool     `glue:"2"`
	ParseSpecial bool     `glue:"3"`
}

// Tokens answers TokenizeRequest.
type Tokens struct {
	_   struct{} `glue:"type=68"`
	Ids []int32  `glue:"1"`
}

// DetokenizeRequest turns token ids back into text; Special renders
// control tokens (as llama.cpp's llama_detokenize with special=true).
type DetokenizeRequest struct {
	_       struct{} `glue:"type=69"`
	Ids     []int32  `glue:"1"`
	Special bool     `glue:"2"`
}

// Text answers DetokenizeRequest and ChatTemplateRequest.
type Text struct {
	_    struct{} `glue:"type=70"`
	Text string   `glue:"1"`
}

// ChatTemplateRequest renders a conversation (message i is Roles[i],
// Contents[i]) with the model's chat template (or Template, when set).
type ChatTemplateRequest struct {
	_                   struct{} `glue:"type=71"`
	Roles               []string `glue:"1"`
	Contents            []string `glue:"2"`
	AddGenerationPrompt bool     `glue:"3"`
	Template            string   `glue:"4"`
}

// GenerateRequest generates a completion of Prompt, or, when Chat is set,
// the assistant's reply to the conversation Roles/Contents rendered through
// the chat template. The sampling fields are used as sent (the page fills
// in defaults): Temperature ≤ 0 is greedy. Generation ends at an
// end-of-generation token, a Stop string (not included in the text),
// MaxTokens, a full context, or cancellation. One TokenEvent is pushed per
// token. Grammar or JsonSchema (at most one) constrain the output: each
// token is drawn among those the grammar allows.
type GenerateRequest struct {
	_                struct{} `glue:"type=72"`
	Prompt           string   `glue:"1"`
	Chat             bool     `glue:"2"`
	Roles            []string `glue:"3"`
	Contents         []string `glue:"4"`
	MaxTokens        int32    `glue:"5"`
	Temperature      float32  `glue:"6"`
	TopK             int32    `glue:"7"`
	TopP             float32  `glue:"8"`
	MinP             float32  `glue:"9"`
	RepeatPenalty    float32  `glue:"10"`
	PenaltyLastN     int32    `glue:"11"`
	FrequencyPenalty float32  `glue:"12"`
	PresencePenalty  float32  `glue:"13"`
	Seed             uint32   `glue:"14"`
	Stop             []string `glue:"15"`
	IgnoreEOS        bool     `glue:"16"`
	Grammar          string   `glue:"17"` // GBNF (llama.cpp syntax) the output must match
	JsonSchema       string   `glue:"18"` // JSON Schema (JSON text) the output must match
	// Messages, when set, replaces Roles/Contents: the conversation as a
	// JSON array of OpenAI messages, which can carry an assistant's
	// tool_calls and a tool turn's tool_call_id and name.
	Messages string `glue:"19"`
	// Tools is a JSON array of OpenAI tool definitions the chat template
	// shows the model; ToolChoice is "auto" (or ""), "none", "required" or
	// "function", which forces a call to ToolName.
	Tools      string `glue:"20"`
	ToolChoice string `glue:"21"`
	ToolName   string `glue:"22"`
	// ContextShift: a generation that fills the context drops half of
	// the tokens after the first NKeep and goes on (llama.cpp's context
	// shift), instead of ending with Finish "length".
	ContextShift bool  `glue:"23"`
	NKeep        int32 `glue:"24"`
}

// TokenEvent is one generated token: its id and the text it completes
// (UTF-8 sequences split across tokens and text that may start a stop
// string are held back, so Text may be empty).
type TokenEvent struct {
	_    struct{} `glue:"type=73"`
	Id   int32    `glue:"1"`
	Text string   `glue:"2"`
}

// GenerateResponse ends a GenerateRequest. Finish is "stop" (end-of-
// generation token or stop string), "length" (MaxTokens or a full context)
// or "tool_calls" (the output was parsed into ToolCalls).
// CachedTokens are prompt tokens reused from the previous call's context.
type GenerateResponse struct {
	_                struct{} `glue:"type=74"`
	Text             string   `glue:"1"`
	Ids              []int32  `glue:"2"`
	Finish           string   `glue:"3"`
	PromptTokens     int32    `glue:"4"`
	CompletionTokens int32    `glue:"5"`
	CachedTokens     int32    `glue:"6"`
	PromptMs         float64  `glue:"7"`
	GenMs            float64  `glue:"8"`
	// ToolCalls are the calls parsed from Text when the request had tools:
	// a JSON array of OpenAI tool_calls ({id, type, function: {name,
	// arguments}}, arguments a JSON string), "" when none. Text is then
	// the content around them, and Finish is "tool_calls".
	ToolCalls string `glue:"9"`
	Shifts    int32  `glue:"10"` // context shifts made (GenerateRequest.ContextShift)
}

// UnloadRequest frees the loaded model.
type UnloadRequest struct {
	_ struct{} `glue:"type=75"`
}

// UnloadResponse answers UnloadRequest.
type UnloadResponse struct {
	_       struct{} `glue:"type=76"`
	Existed bool     `glue:"1"`
}

// OpfsFirstTokenRequest opens the cache entry Key as a GGUF file read
// through OPFS, loads it into the engine on the CPU backend and evaluates
// Prompt, returning the greedy next token and the time from the request to
// that token (a diagnostic; the public load(id) → first token on WebGPU is
// measured through ModelLoadRequest by scripts/harness/pages/opfs-api.js).
type OpfsFirstTokenRequest struct {
	_      struct{} `glue:"type=93"`
	Key    string   `glue:"1"`
	Prompt []int32  `glue:"2"`
	NCtx   uint32   `glue:"3"`
}

// OpfsFirstTokenResponse answers OpfsFirstTokenRequest; times in ms from
// the start of the request.
type OpfsFirstTokenResponse struct {
	_          struct{} `glue:"type=94"`
	Token      int32    `glue:"1"`
	OpenMs     float64  `glue:"2"` // metadata parsed
	LoadMs     float64  `glue:"3"` // weights in the backend
	FirstMs    float64  `glue:"4"` // first token chosen
	Backend    string   `glue:"5"`
	WasmGrowth int64    `glue:"6"`
}

// EmbedRequest embeds each of Inputs with the loaded embedding model: the
// text tokenized with special tokens, then pooled as the model says
// (llama_get_embeddings_seq), L2-normalized when Normalize is set.
type EmbedRequest struct {
	_         struct{} `glue:"type=110"`
	Inputs    []string `glue:"1"`
	Normalize bool     `glue:"2"`
}

// EmbedResponse answers EmbedRequest: the vectors of the inputs, in order,
// NEmbd values each, concatenated in Data; Tokens[i] is input i's length
// in tokens.
type EmbedResponse struct {
	_      struct{}  `glue:"type=111"`
	NEmbd  uint32    `glue:"1"`
	Data   []float32 `glue:"2"`
	Tokens []uint32  `glue:"3"`
}

// RerankRequest scores each of Documents against Query with the loaded
// reranker (rank pooling), as engine.Rerank.
type RerankRequest struct {
	_         struct{} `glue:"type=112"`
	Query     string   `glue:"1"`
	Documents []string `glue:"2"`
}

// RerankResponse answers RerankRequest: Scores[i] is document i's raw
// score (the classifier's logit, as llama.cpp's server reports it);
// Tokens[i] the length of its query-document pair in tokens.
type RerankResponse struct {
	_      struct{}  `glue:"type=113"`
	Scores []float32 `glue:"1"`
	Tokens []uint32  `glue:"2"`
}

// SessionSaveRequest saves the loaded model's session: the tokens its KV
// cache holds and the cache, behind a header naming the model
// (engine.Session.Save's format), with Meta (JSON text or "") beside them.
type SessionSaveRequest struct {
	_    struct{} `glue:"type=120"`
	Meta string   `glue:"1"`
}

// SessionData answers SessionSaveRequest: the saved bytes and how many
// tokens they hold.
type SessionData struct {
	_      struct{} `glue:"type=121"`
	Data   []byte   `glue:"1"`
	Tokens int32    `glue:"2"`
}

// SessionRestoreRequest replaces the loaded model's session with saved
// bytes, so that the next request reuses their tokens without prefill.
// Bytes that are not an intact save are a bad-file error, a save of
// another model invalid-argument; either leaves the session as it was.
type SessionRestoreRequest struct {
	_    struct{} `glue:"type=122"`
	Data []byte   `glue:"1"`
}

// SessionRestored answers SessionRestoreRequest with the save's token
// count and Meta.
type SessionRestored struct {
	_      struct{} `glue:"type=123"`
	Tokens int32    `glue:"1"`
	Meta   string   `glue:"2"`
}

// messages registers the schema; order does not matter.
var messages = []any{
	Error{}, Cancel{}, Progress{}, Log{},
	HelloRequest{}, HelloResponse{},
	OpfsDownloadRequest{}, OpfsDownloadResponse{}, OpfsProgress{},
	OpfsListRequest{}, OpfsListResponse{}, OpfsDeleteRequest{}, OpfsDeleteResponse{},
	OpfsClearRequest{}, OpfsClearResponse{}, OpfsEstimateRequest{}, OpfsEstimateResponse{},
	ModelLoadRequest{}, ModelInfo{}, InfoRequest{}, TokenizeRequest{}, Tokens{},
	DetokenizeRequest{}, Text{}, ChatTemplateRequest{}, GenerateRequest{}, TokenEvent{},
	GenerateResponse{}, UnloadRequest{}, UnloadResponse{},
	EmbedRequest{}, EmbedResponse{}, RerankRequest{}, RerankResponse{},
	SessionSaveRequest{}, SessionData{}, SessionRestoreRequest{}, SessionRestored{},
}
