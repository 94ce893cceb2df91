//go:build js

package opfs

import (
	"context"
	"fmt"
	"syscall/js"

	"github.com/hack-pad/safejs"
	"github.com/webgguf/webgguf/gguf"
)

// TensorStream returns a stream of tensor ti's bytes (of shard shard of
// src, whose GGUF data section starts at dataOffset) as JS Uint8Arrays of
// chunk bytes (the last may be shorter), in order from offset 0: the shape
// of compute/gpu's JSStream, so a backend can hand each chunk to
// queue.writeBuffer (Backend.LoadWeightJS). The chunks are views of one
// reused JS buffer, valid only during the callback.
func TensorStream(ctx context.Context, src Source, shard int, dataOffset int64, ti *gguf.TensorInfo, chunk int) func(fn func(off int64, chunk js.Value) error) error {
	return func(fn func(off int64, chunk js.Value) error) error {
		if chunk <= 0 || chunk%4 != 0 {
			return &Error{Kind: KindInvalid, Op: "stream", Field: "chunk", Offset: -1, Msg: fmt.Sprintf("%d is not a positive multiple of 4", chunk)}
		}
		base := dataOffset + int64(ti.Offset)
		if shard < 0 || shard >= src.Shards() || base < 0 || ti.Size < 0 || ti.Size > src.Size(shard)-base {
			return &Error{Kind: KindFormat, Op: "stream", Field: ti.Name, Offset: base, Msg: "data outside the file"}
		}
		staging, err := newBytes(int(min(int64(chunk), max(ti.Size, 1))))
		if err != nil {
			return err
		}
		for off := int64(0); off < ti.Size; off += int64(chunk) {
			if err := ctx.Err(); err != nil {
				return err
			}
			n := min(int64(chunk), ti.Size-off)
			view, err := staging.Call("subarray", 0, n)
			if err != nil {
				return err
			}
			if err := src.ReadJS(ctx, shard, base+off, view); err != nil {
				return wrap(err, KindFormat, "stream", "", fmt.Sprintf("tensor %q at byte %d", ti.Name, base+off))
			}
			if err := fn(off, safejs.Unsafe(view)); err != nil {
				return err
			}
		}
		return nil
	}
}
