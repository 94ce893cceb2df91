//go:build js

package opfs

import (
	"context"
	"fmt"
	"syscall/js"

	"github.com/hack-pad/safejs"
	"github.com/webgguf/webgguf/gguf"
)

// Streamer streams tensors as JS Uint8Arrays through one staging buffer
// of chunk bytes, reused for every chunk of every tensor of a load. A
// full chunk is the staging buffer itself (only a tensor's last, short
// chunk is a subarray view), so streaming creates no JS object per chunk.
// Each new object handed to Go is a js.Value that stays in wasm_exec.js's
// table, with what it references, until Go's collector finalizes it; the
// collections forced every 32 MiB to release them held the browser's GPU
// load back (H200: weights 0.66-0.89 GB/s before, 1.0-1.1 without them).
type Streamer struct {
	chunk   int
	staging safejs.Value
}

// NewStreamer returns a Streamer of chunk bytes (a positive multiple of 4).
func NewStreamer(chunk int) (*Streamer, error) {
	if chunk <= 0 || chunk%4 != 0 {
		return nil, &Error{Kind: KindInvalid, Op: "stream", Field: "chunk", Offset: -1, Msg: fmt.Sprintf("%d is not a positive multiple of 4", chunk)}
	}
	return &Streamer{chunk: chunk}, nil
}

// Tensor returns a stream of tensor ti's bytes (of shard shard of src,
// whose GGUF data section starts at dataOffset) as JS Uint8Arrays of the
// streamer's chunk bytes (the last may be shorter), in order from offset
// 0: the shape of compute/gpu's JSStream, so a backend can hand each chunk
// to queue.writeBuffer (Backend.LoadWeightJS). The chunks are views of the
// streamer's buffer, valid only during the callback; one stream at a time.
func (s *Streamer) Tensor(ctx context.Context, src Source, shard int, dataOffset int64, ti *gguf.TensorInfo) func(fn func(off int64, chunk js.Value) error) error {
	return func(fn func(off int64, chunk js.Value) error) error {
		base := dataOffset + int64(ti.Offset)
		if shard < 0 || shard >= src.Shards() || base < 0 || ti.Size < 0 || ti.Size > src.Size(shard)-base {
			return &Error{Kind: KindFormat, Op: "stream", Field: ti.Name, Offset: base, Msg: "data outside the file"}
		}
		if s.staging.IsUndefined() && ti.Size > 0 {
			st, err := newBytes(s.chunk)
			if err != nil {
				return err
			}
			s.staging = st
		}
		for off := int64(0); off < ti.Size; off += int64(s.chunk) {
			if err := ctx.Err(); err != nil {
				return err
			}
			n := min(int64(s.chunk), ti.Size-off)
			view := s.staging
			if n < int64(s.chunk) {
				v, err := s.staging.Call("subarray", 0, n)
				if err != nil {
					return err
				}
				view = v
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

// TensorStream is a one-tensor Streamer's Tensor: a stream of ti's bytes
// in chunks of chunk bytes through a staging buffer of its own.
func TensorStream(ctx context.Context, src Source, shard int, dataOffset int64, ti *gguf.TensorInfo, chunk int) func(fn func(off int64, chunk js.Value) error) error {
	s, err := NewStreamer(chunk)
	if err != nil {
		return func(func(int64, js.Value) error) error { return err }
	}
	return s.Tensor(ctx, src, shard, dataOffset, ti)
}
