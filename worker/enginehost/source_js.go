//go:build js

package enginehost

import (
	"context"
	"fmt"
	"runtime"
	"syscall/js"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/glue"
	"github.com/webgguf/webgguf/opfs"
)

// streamChunk is the JS-side chunk of a GPU weight load: one OPFS read
// and one writeBuffer each, through the load's one staging buffer. 4 MiB
// rather than the 1 MiB (gguf.DefaultChunkSize) of the other streams:
// Chromium's writeBuffer costs more per call than per byte. H200, Chromium
// 156, the same build but for this constant, alternated in one call
// (make bench-opfs): weights of a Llama-3.2-1B-shaped
// q4_0 file 882-952 ms at 1 MiB, 631-697 at 256 KiB, 458-491 at 4 MiB
// (1.6-1.7 GB/s); of the 1.1 GB f16 file 1142, 856 and 545 ms (2.1 GB/s).
const streamChunk = 4 * gguf.DefaultChunkSize

// yieldEvery is how many bytes stream to the GPU between two turns given to
// the event loop: a synchronous OPFS read and writeBuffer never block, so
// without them a Cancel frame would wait for the whole load.
const yieldEvery = 32 << 20

// gcEvery is how many bytes stream between two runs of Go's collector, a
// safety net only: the streamer hands Go no new JS object per full chunk
// (opfs.Streamer), so there is little for it to release.
const gcEvery = 256 << 20

// loadNamed is Load of the source a ModelLoadRequest names instead of
// sending bytes: the worker's OPFS cache entry Key, URL (no caching) or the
// Blobs the page posted under BlobID.
func (h *Host) loadNamed(ctx context.Context, req *glue.ModelLoadRequest, o LoadOptions) (*glue.ModelInfo, error) {
	var (
		src opfs.Source
		err error
	)
	switch {
	case req.Key != "":
		o.source = "cache"
		var c *opfs.Cache
		if c, err = opfs.Shared(ctx); err != nil {
			return nil, err
		}
		var e *opfs.Entry
		if e, err = c.Get(ctx, req.Key); err != nil {
			return nil, err
		}
		src, err = e.Source(ctx)
	case req.URL != "":
		o.source = "url"
		src, err = opfs.URLSource(ctx, []string{req.URL})
	case len(req.ShardURLs) > 0:
		o.source = "url"
		src, err = opfs.URLSource(ctx, req.ShardURLs)
	default:
		o.source = "blob"
		bs, ok := opfs.PostedBlobs(req.BlobID)
		if !ok {
			return nil, invalid("no File or Blob was posted to the engine under id " + req.BlobID)
		}
		src, err = opfs.BlobSource(bs)
	}
	if err != nil {
		return nil, err
	}
	defer src.Close()
	return h.LoadSource(ctx, src, o)
}

// LoadSource is Load of a model read from src (the worker's OPFS cache
// entry, URLs or Blobs; see package opfs), which it does not close: one
// file, or the shards of a split model, joined with gguf.OpenSplit. Only
// the metadata passes through Go memory when the model lands on the WebGPU
// backend: each weight streams in 4 MiB JS chunks from its shard into its
// GPU buffer (opfs.TensorStream → gpu.Backend.LoadWeightJS), with progress
// per chunk over the weights of all shards. The CPU backend computes from
// Go memory, so it reads the weights through the joined file like Load.
func (h *Host) LoadSource(ctx context.Context, src opfs.Source, o LoadOptions) (*glue.ModelInfo, error) {
	var (
		f          *gguf.File
		dataOffset []int64 // of each shard
		size       int64
	)
	open := func() (*gguf.File, error) {
		var err error
		f, dataOffset, err = openShards(src)
		return f, err
	}
	for i := range src.Shards() {
		size += src.Size(i)
	}
	// The engine reports the GPU path once per tensor (up to 100+ MB on
	// big models); the stream below reports it per chunk instead.
	progress, onGPU := o.Progress, false
	o.Progress = func(done, total int64) {
		if !onGPU && progress != nil {
			progress(done, total)
		}
	}
	weights := func(be compute.Backend) engine.WeightLoader {
		g, ok := be.(*gpu.Backend)
		onGPU = ok
		if !ok {
			return nil
		}
		var total, done, since, sinceGC int64
		for _, ti := range f.Tensors {
			total += ti.Size
		}
		st, err := opfs.NewStreamer(streamChunk)
		if err != nil {
			return func(context.Context, *compute.Tensor, *gguf.TensorInfo) error { return err }
		}
		return func(ctx context.Context, w *compute.Tensor, ti *gguf.TensorInfo) error {
			chunks := st.Tensor(ctx, src, ti.Split, dataOffset[ti.Split], ti)
			return g.LoadWeightJS(w, ti.Size, func(fn func(off int64, chunk js.Value) error) error {
				return chunks(func(off int64, chunk js.Value) error {
					if err := fn(off, chunk); err != nil {
						return err
					}
					n := int64(chunk.Get("byteLength").Int())
					done += n
					if since += n; since >= yieldEvery {
						since = 0
						yieldToJS()
					}
					if sinceGC += n; sinceGC >= gcEvery {
						sinceGC = 0
						runtime.GC()
					}
					if progress != nil {
						progress(min(done, total), total)
					}
					return ctx.Err()
				})
			})
		}
	}
	return h.LoadFile(ctx, open, size, weights, o)
}

// openShards parses every shard of src and joins them (gguf.OpenSplit: a
// single file without split keys is itself); it returns the joined file
// and each shard's data offset. A shard that does not parse is named
// ("shard 2 of 3") in the error.
func openShards(src opfs.Source) (*gguf.File, []int64, error) {
	n := src.Shards()
	parts := make([]gguf.Part, n)
	offsets := make([]int64, n)
	for i := range n {
		s, err := gguf.Open(src.ReaderAt(i), src.Size(i))
		if err != nil {
			return nil, nil, shardError(err, i, n)
		}
		offsets[i] = s.DataOffset
		_ = s.Close()
		parts[i] = gguf.Part{R: src.ReaderAt(i), Size: src.Size(i)}
	}
	f, err := gguf.OpenSplit(parts)
	if err != nil && n > 1 {
		return nil, nil, fmt.Errorf("the %d shards do not form one model: %w", n, err)
	}
	return f, offsets, err
}

// shardError names shard i of n in err (when there are several).
func shardError(err error, i, n int) error {
	if n == 1 {
		return err
	}
	return fmt.Errorf("shard %d of %d: %w", i+1, n, err)
}
