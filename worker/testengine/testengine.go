// Package testengine registers the handlers the browser e2e tests need on
// top of a real engine build: server-push streams and deliberate crashes.
// Only the wasm build tagged e2e links it (wasm/e2e.go).
package testengine

import (
	"context"
	"time"

	"github.com/webgguf/webgguf/glue"
	"github.com/webgguf/webgguf/worker"
)

// Register adds the StreamRequest and CrashRequest handlers to m.
func Register(m *worker.Mux) {
	worker.HandleOn(m, stream)
	worker.HandleOn(m, func(ctx context.Context, req *glue.CrashRequest, _ *worker.Stream) (*glue.StatsResponse, error) {
		if err := crash(req.Mode); err != nil {
			return nil, err
		}
		<-ctx.Done() // the engine is going down; never answer
		return nil, ctx.Err()
	})
}

// stream sends req.Count chunks of req.ChunkBytes bytes, Data[i] = byte(Seq+i),
// req.IntervalMs apart, and stops when the call is canceled.
func stream(ctx context.Context, req *glue.StreamRequest, s *worker.Stream) (*glue.StreamDone, error) {
	buf := make([]byte, req.ChunkBytes)
	for seq := range req.Count {
		for i := range buf {
			buf[i] = byte(seq + uint32(i))
		}
		if err := s.Send(&glue.StreamChunk{Seq: seq, Data: buf}); err != nil {
			return nil, err
		}
		if req.IntervalMs > 0 {
			t := time.NewTimer(time.Duration(req.IntervalMs) * time.Millisecond)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			}
		} else if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return &glue.StreamDone{Sent: req.Count}, nil
}
