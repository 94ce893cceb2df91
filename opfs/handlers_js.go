//go:build js

package opfs

import (
	"context"
	"encoding/json"
	"runtime"
	"sync"
	"time"

	"github.com/webgguf/webgguf/glue"
	"github.com/webgguf/webgguf/webgpu"
	"github.com/webgguf/webgguf/worker"
)

var (
	cacheMu sync.Mutex
	cache   *Cache
)

// Shared returns the worker's cache, the one the Opfs* handlers serve,
// opening it on first use (enginehost loads cache entries through it).
func Shared(ctx context.Context) (*Cache, error) { return shared(ctx) }

// shared returns the worker's cache, opening it on first use.
func shared(ctx context.Context) (*Cache, error) {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if cache == nil {
		c, err := Open(ctx)
		if err != nil {
			return nil, err
		}
		cache = c
	}
	return cache, nil
}

func toWire(p Progress) *glue.OpfsProgress {
	return &glue.OpfsProgress{Stage: p.Stage, Key: p.Key, Shard: uint32(p.Shard), Shards: uint32(p.Shards), Done: p.Done, Total: p.Total,
		AllDone: p.AllDone, AllTotal: p.AllTotal, BytesPerSec: p.BytesPerSec}
}

// Register installs the cache and loader handlers (the Opfs* glue
// requests) on m.
func Register(m *worker.Mux) {
	listenForBlobs()
	worker.HandleOn(m, func(ctx context.Context, req *glue.OpfsDownloadRequest, s *worker.Stream) (*glue.OpfsDownloadResponse, error) {
		c, err := shared(ctx)
		if err != nil {
			return nil, err
		}
		r, err := c.Download(ctx, req.ShardURLs, DownloadOptions{Key: req.Key, SHA256: req.SHA256, Parallel: int(req.Parallel),
			Progress: func(p Progress) { _ = s.Send(toWire(p)) }, Check: modelCheck})
		if err != nil {
			return nil, err
		}
		return &glue.OpfsDownloadResponse{Key: r.Key, Size: r.Size, Resumed: uint32(r.Resumed), Restarted: uint32(r.Restarted), Fetched: r.Fetched}, nil
	})
	worker.HandleOn(m, func(ctx context.Context, _ *glue.OpfsListRequest, _ *worker.Stream) (*glue.OpfsListResponse, error) {
		c, err := shared(ctx)
		if err != nil {
			return nil, err
		}
		es, err := c.List(ctx)
		if err != nil {
			return nil, err
		}
		out := &glue.OpfsListResponse{}
		for _, e := range es {
			b, _ := json.Marshal(e.Meta)
			out.Keys = append(out.Keys, e.Meta.Key)
			out.Sizes = append(out.Sizes, e.Meta.Size())
			out.Metas = append(out.Metas, string(b))
		}
		return out, nil
	})
	worker.HandleOn(m, func(ctx context.Context, req *glue.OpfsDeleteRequest, _ *worker.Stream) (*glue.OpfsDeleteResponse, error) {
		c, err := shared(ctx)
		if err != nil {
			return nil, err
		}
		ok, err := c.Delete(ctx, req.Key)
		return &glue.OpfsDeleteResponse{Existed: ok}, err
	})
	worker.HandleOn(m, func(ctx context.Context, _ *glue.OpfsClearRequest, _ *worker.Stream) (*glue.OpfsClearResponse, error) {
		c, err := shared(ctx)
		if err != nil {
			return nil, err
		}
		n, err := c.Clear(ctx)
		return &glue.OpfsClearResponse{Removed: uint32(n)}, err
	})
	worker.HandleOn(m, func(ctx context.Context, req *glue.OpfsEstimateRequest, _ *worker.Stream) (*glue.OpfsEstimateResponse, error) {
		u, q, p, err := Estimate(ctx, req.Persist)
		if err != nil {
			return nil, err
		}
		return &glue.OpfsEstimateResponse{Usage: u, Quota: q, Persisted: p}, nil
	})
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
