//go:build js && webgguf_test

package opfs

import (
	"context"
	"runtime"
	"time"

	"github.com/webgguf/webgguf/glue"
	"github.com/webgguf/webgguf/webgpu"
	"github.com/webgguf/webgguf/worker"
)

// RegisterDiagnostics installs the test engine's OPFS diagnostics on m:
// the loader's own GPU upload (OpfsLoadRequest) and the first-token
// measurement (OpfsFirstTokenRequest), test messages the release engine
// does not serve.
func RegisterDiagnostics(m *worker.Mux) {
	worker.HandleOn(m, handleLoad)
	worker.HandleOn(m, handleFirstToken)
}

// handleLoad streams a model into GPU buffers on a fresh device, reports
// what it cost, and frees the buffers (the model runtime will keep them).
func handleLoad(ctx context.Context, req *glue.OpfsLoadRequest, s *worker.Stream) (*glue.OpfsLoadResponse, error) {
	runtime.GC()
	before := WasmBytes()
	peak := JSHeapUsed()
	liveBefore := LiveBuffers()
	var src Source
	var err error
	switch {
	case req.BlobID != "":
		bs, ok := PostedBlobs(req.BlobID)
		if !ok {
			return nil, &Error{Kind: KindNotFound, Op: "load", Field: "blobID", Offset: -1, Msg: "no Blobs posted under " + req.BlobID}
		}
		src, err = BlobSource(bs)
	case len(req.ShardURLs) > 0:
		src, err = URLSource(ctx, req.ShardURLs)
	default:
		var c *Cache
		if c, err = shared(ctx); err != nil {
			return nil, err
		}
		var e *Entry
		if e, err = c.Get(ctx, req.Key); err != nil {
			return nil, err
		}
		if req.Source == "blob" {
			src, err = e.BlobSource(ctx)
		} else {
			src, err = e.Source(ctx)
		}
	}
	if err != nil {
		return nil, err
	}
	defer src.Close()
	d, err := webgpu.Open(ctx, webgpu.Options{})
	if err != nil {
		return nil, &Error{Kind: KindGPU, Op: "load", Key: req.Key, Offset: -1, Err: err}
	}
	defer d.Close()
	if req.Source == "stream" {
		return streamOne(ctx, d, src, req.Verify, int(req.ChunkBytes))
	}
	t0 := time.Now()
	m, err := Load(ctx, d, src, LoadOptions{ChunkBytes: int(req.ChunkBytes), Progress: func(p Progress) {
		p.Key = req.Key
		peak = max(peak, JSHeapUsed())
		_ = s.Send(toWire(p))
	}})
	if err != nil {
		return nil, err
	}
	defer m.Free()
	out := &glue.OpfsLoadResponse{Bytes: m.Bytes, Tensors: uint32(len(m.Tensors)), Ms: float64(time.Since(t0).Microseconds()) / 1000,
		GPUBuffers: uint32(len(m.Buffers)), WasmBytes: WasmBytes(), JSHeapPeak: max(peak, JSHeapUsed()), LiveBefore: uint32(liveBefore)}
	// Measured before Verify, whose read-back is a test aid that copies a
	// tensor into Go memory on purpose.
	out.WasmGrowth = out.WasmBytes - before
	if req.Verify != "" {
		ti, shard, sum, err := m.ReadBack(ctx, d, req.Verify)
		if err != nil {
			return nil, err
		}
		out.VerifyShard, out.VerifyOffset, out.VerifySize, out.VerifySHA256 = uint32(shard), m.Files[shard].DataOffset+int64(ti.Offset), ti.Size, sum
	}
	return out, nil
}
