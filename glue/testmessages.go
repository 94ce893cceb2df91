//go:build !(js && wasm) || webgguf_test

package glue

// testMessages are the test and diagnostics messages: echo (the transport
// benchmark), stream, crash, stats, all-types (codec conformance), and the
// OPFS loader and first-token diagnostics. They are registered natively,
// where the Go tests run, and in the test engine (GOOS=js with the
// webgguf_test tag, make wasm-test), never in the release engine.wasm:
// there their type ids are unknown, like any id outside the schema.
var testMessages = []any{
	EchoRequest{}, EchoResponse{},
	StreamRequest{}, StreamChunk{}, StreamDone{},
	CrashRequest{}, StatsRequest{}, StatsResponse{},
	AllTypes{},
	OpfsLoadRequest{}, OpfsLoadResponse{}, OpfsFirstTokenRequest{}, OpfsFirstTokenResponse{},
}

func init() { register(testMessages, true) }
