//go:build !(js && wasm) || webgguf_test

package worker

import (
	"sync"
	"testing"

	"github.com/webgguf/webgguf/glue"
)

// countTransport counts frames and signals each one, without decoding.
type countTransport struct {
	wg *sync.WaitGroup
}

func (c countTransport) Send([]byte) error { c.wg.Done(); return nil }

// BenchmarkDeliverEcho measures the Go side of one small echo call natively:
// decode, dispatch to a goroutine, handler, encode (allocations are what
// drives GC pauses in the wasm build).
func BenchmarkDeliverEcho(b *testing.B) {
	for _, size := range []int{16, 1 << 20} {
		b.Run(map[int]string{16: "16B", 1 << 20: "1MiB"}[size], func(b *testing.B) {
			var wg sync.WaitGroup
			m := NewMux()
			RegisterDiagnostics(m)
			s := NewServer(m, countTransport{&wg}, "bench")
			data := make([]byte, size)
			for i := range data {
				data[i] = byte(i*7 + 1)
			}
			frame, _ := glue.Encode(glue.KindRequest, 1, &glue.EchoRequest{Data: data})
			b.SetBytes(int64(2 * size))
			b.ReportAllocs()
			for b.Loop() {
				wg.Add(1)
				f := s.Buffer(len(frame))
				copy(f, frame)
				s.Deliver(f)
				wg.Wait()
			}
		})
	}
}
