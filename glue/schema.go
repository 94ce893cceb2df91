package glue

// This file is the schema: every message that crosses the page/worker
// boundary. A message is a struct whose blank first field carries the type id
// (`glue:"type=N"`) and whose fields carry field ids (`glue:"N"`). Field ids
// are never reused or renumbered; to retire a field, delete it and leave its
// id unused. Adding a field with a new id is backward and forward compatible:
// decoders skip ids they do not know and leave missing fields at zero.
//
// After editing this file run `go generate ./glue/...`: it rewrites the
// JavaScript codec and TypeScript types in jsbindings/src/, and
// TestGeneratedUpToDate fails until you do.
//
// Type ids 1–15 are protocol messages, 16–63 diagnostics and tests, 64 and up
// engine features.

//go:generate go run ./gen -out ../jsbindings/src

// Error ends a call that failed (frame kind KindError). Kind is a stable
// machine-readable class ("canceled", "decode.truncated", "not_found",
// "internal", ...), Message the human text, Cause and CauseKind describe the
// wrapped error, if any.
type Error struct {
	_         struct{} `glue:"type=1"`
	Kind      string   `glue:"1"`
	Message   string   `glue:"2"`
	Cause     string   `glue:"3"`
	CauseKind string   `glue:"4"`
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
// exception in the worker. Only the e2e test build registers its handler.
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

// messages registers the schema; order does not matter.
var messages = []any{
	Error{}, Cancel{}, Progress{}, Log{},
	HelloRequest{}, HelloResponse{},
	EchoRequest{}, EchoResponse{},
	StreamRequest{}, StreamChunk{}, StreamDone{},
	CrashRequest{}, StatsRequest{}, StatsResponse{},
	AllTypes{},
}
