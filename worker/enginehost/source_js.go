//go:build js

package enginehost

import (
	"context"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/glue"
	"github.com/webgguf/webgguf/opfs"
	"github.com/webgguf/webgguf/worker"
)

// streamChunk is the JS-side chunk of a GPU weight load: 1 MiB, the size
// opfs reads and writeBuffer takes without a second copy.
const streamChunk = gguf.DefaultChunkSize

// LoadSource is Load of a single-file model read from src (the worker's
// OPFS cache entry, a URL or a Blob; see package opfs), which it does not
// close. Only the metadata passes through Go memory when the model lands
// on the WebGPU backend: each weight streams in 1 MiB JS chunks into its
// GPU buffer (opfs.TensorStream → gpu.Backend.LoadWeightJS). The CPU
// backend computes from Go memory, so it reads the weights through
// src.ReaderAt like Load.
func (h *Host) LoadSource(ctx context.Context, src opfs.Source, o LoadOptions) (*glue.ModelInfo, error) {
	if src.Shards() != 1 {
		return nil, worker.NewError(KindUnsupportedModel, "split models are not supported yet: merge them with llama-gguf-split --merge", nil)
	}
	var f *gguf.File
	open := func() (*gguf.File, error) {
		var err error
		f, err = gguf.Open(src.ReaderAt(0), src.Size(0))
		return f, err
	}
	weights := func(be compute.Backend) engine.WeightLoader {
		g, ok := be.(*gpu.Backend)
		if !ok {
			return nil
		}
		return func(ctx context.Context, w *compute.Tensor, ti *gguf.TensorInfo) error {
			return g.LoadWeightJS(w, ti.Size, gpu.JSStream(opfs.TensorStream(ctx, src, 0, f.DataOffset, ti, streamChunk)))
		}
	}
	return h.LoadFile(ctx, open, src.Size(0), weights, o)
}
