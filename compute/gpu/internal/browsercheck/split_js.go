//go:build js && wasm

package main

import (
	"context"
	"fmt"
	"strings"
	"syscall/js"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/gguf"
)

// splitSuffix marks a model checked with its weights split by rows: the
// backend plans with a 64 KiB binding limit and 256 KiB buffers, and every
// weight is streamed by LoadWeightJS from a JS copy of the file in chunks
// of varying lengths (multiples of 4, as OPFS reads deliver them) that
// straddle the part boundaries: each straddling chunk is written as
// subarray views, one per part.
const splitSuffix = ":split"

// splitModel strips splitSuffix from a model name.
func splitModel(name string) (file string, split bool) { return strings.CutSuffix(name, splitSuffix) }

// splitLoad sets the small limits on be and returns the engine's weight
// loader streaming from data (the whole file) as JS chunks.
func splitLoad(be *gpu.Backend, f *gguf.File, data []byte) (engine.WeightLoader, error) {
	if err := be.SetWeightLimits(gpu.WeightLimits{MaxBinding: 64 << 10, MaxBuffer: 256 << 10, Align: 256}); err != nil {
		return nil, err
	}
	u8 := js.Global().Get("Uint8Array").New(len(data))
	js.CopyBytesToJS(u8, data)
	return func(_ context.Context, w *compute.Tensor, ti *gguf.TensorInfo) error {
		base := f.DataOffset + int64(ti.Offset)
		if ti.Split != 0 || base+ti.Size > int64(len(data)) {
			return fmt.Errorf("%s: data outside the file", ti.Name)
		}
		return be.LoadWeightJS(w, ti.Size, func(fn func(off int64, chunk js.Value) error) error {
			// Chunk lengths cycle through 4 KiB + 4·{0..6} bytes, never a
			// divisor of a part's size, so boundaries fall inside chunks.
			for off, k := int64(0), int64(0); off < ti.Size; k++ {
				n := min(ti.Size-off, 4096+4*(k%7))
				if err := fn(off, u8.Call("subarray", base+off, base+off+n)); err != nil {
					return err
				}
				off += n
			}
			return nil
		})
	}, nil
}
