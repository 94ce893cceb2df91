//go:build js

package opfs

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/webgguf/webgguf/glue"
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

// Register installs the cache handlers (the Opfs* glue requests of the
// release engine) on m; RegisterDiagnostics adds the test engine's.
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
}
