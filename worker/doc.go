// Package worker is the engine's request loop inside the Web Worker; its
// JavaScript bootstrap (worker.js) lives beside it.
//
// The page sends GLUE request frames; the loop decodes each one in the
// worker's onmessage callback and runs its handler on a new goroutine (a
// handler may await JS promises there; awaiting inside the callback itself
// would deadlock Go's js runtime). Handlers are registered by request type, so
// engine features plug in without touching the loop:
//
//	func init() {
//		worker.Handle(func(ctx context.Context, req *glue.EchoRequest, s *worker.Stream) (*glue.EchoResponse, error) {
//			s.Progress("echo", 0, 1) // server-push event tied to this call
//			return &glue.EchoResponse{Data: req.Data}, nil
//		})
//	}
//
// The handler's ctx is canceled when the page cancels the call (a Cancel
// frame, sent when its AbortSignal fires). A returned error reaches the page
// as a typed error: its kind comes from a GlueKind() method anywhere in the
// chain (see Error), "canceled" for context.Canceled, "internal" otherwise;
// the wrapped cause travels with it. A handler panic becomes an error of kind
// "panic"; it does not kill the engine.
//
// Raw ([]byte) fields of a request alias a buffer that is reused once the
// handler has returned: copy what you keep.
package worker
