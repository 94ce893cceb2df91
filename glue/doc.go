// Package glue is the binary protocol between the page and the engine's Web
// Worker: the schema (schema.go), the Go codec, and the generator of the
// JavaScript codec and TypeScript types (gen, internal/jsgen).
//
// A frame is a 20-byte header — magic "GLUE", version, kind (request,
// response, event, error, cancel), message type id, call id, total length —
// followed by typed fields (wire.go has the byte layout). Decoders on both
// sides check every length against the frame and return *DecodeError naming
// the field and byte offset; unknown field ids are skipped, so adding an
// optional field breaks no older peer. The JS decoder reports the same error
// code, field and offset as the Go one for the same bytes
// (TestCrossLanguage).
//
//	b, err := glue.Encode(glue.KindRequest, id, &glue.EchoRequest{Data: p})
//	h, msg, err := glue.Decode(b) // msg is *glue.EchoRequest
package glue
