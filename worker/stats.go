//go:build !(js && wasm) || webgguf_test

package worker

import (
	"context"
	"runtime"

	"github.com/webgguf/webgguf/glue"
)

// StatsRequest is a test message (glue/testmessages.go): the server
// answers it where the test messages are registered, natively and in the
// test engine.
func init() {
	statsBuiltin = func(s *Server) (uint32, handlerFunc) {
		return mustID(&glue.StatsRequest{}), func(context.Context, any, *Stream) (any, error) {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			return &glue.StatsResponse{
				InFlight: s.inFlight.Load() - 1, // not counting this call
				Handled:  s.handled.Load(),
				Canceled: s.canceled.Load(),
				Rejected: s.rejected.Load(),
				NumGC:    ms.NumGC,
				HeapSys:  int64(ms.HeapSys),
				PauseNs:  int64(ms.PauseTotalNs),
			}, nil
		}
	}
}
