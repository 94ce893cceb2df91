package engine

import (
	"context"
	"fmt"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
)

// WeightLoader moves weight w, whose bytes are GGUF tensor ti of the file
// given to Load, into the backend (w's backend, Options.Backend), loading
// exactly ti.Size bytes. It exists for sources the engine should not read
// through Go memory: in the browser the GPU path streams the file's chunks
// from OPFS, a URL or a Blob as JS buffers straight into GPU buffers
// (opfs.TensorStream → gpu.Backend.LoadWeightJS), so the weights never
// enter wasm memory. Load still reads the file's metadata through the
// *gguf.File. For a view of a fused tensor (compute.View), ti is narrowed
// to the view's rows (model.WeightInfo): Offset and Size are those rows'
// bytes, so a loader that reads ti.Offset and ti.Size loads it unchanged.
type WeightLoader func(ctx context.Context, w *compute.Tensor, ti *gguf.TensorInfo) error

// loadWith loads every weight through load, reporting progress per tensor.
func loadWith(ctx context.Context, load WeightLoader, ws []*compute.Tensor, infos []*gguf.TensorInfo, total int64, progress func(done, total int64)) error {
	var done int64
	for i, w := range ws {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := load(ctx, w, infos[i]); err != nil {
			return fmt.Errorf("engine: load weight %s: %w", w.Name, err)
		}
		done += infos[i].Size
		if progress != nil {
			progress(done, total)
		}
	}
	return nil
}
