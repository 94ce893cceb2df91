//go:build !(js && wasm) || webgguf_test

package worker

import (
	"context"
	"time"

	"github.com/webgguf/webgguf/glue"
)

// RegisterDiagnostics registers the EchoRequest handler on m: the health
// check and the transport benchmark of the test engine (EchoRequest is a
// test message: the release engine does not serve it).
func RegisterDiagnostics(m *Mux) {
	HandleOn(m, func(ctx context.Context, req *glue.EchoRequest, _ *Stream) (*glue.EchoResponse, error) {
		if req.DelayMs > 0 {
			t := time.NewTimer(time.Duration(req.DelayMs) * time.Millisecond)
			defer t.Stop()
			select {
			case <-t.C:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		// Data aliases the request frame, which stays valid until this
		// handler returns; the response is encoded before that.
		return &glue.EchoResponse{Data: req.Data, Text: req.Text}, nil
	})
}
