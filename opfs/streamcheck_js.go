//go:build js && webgguf_test

package opfs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"syscall/js"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/glue"
	"github.com/webgguf/webgguf/webgpu"
)

// streamOne uploads tensor name of src through TensorStream into its own
// GPU buffer the way compute/gpu's LoadWeightJS consumes a JSStream
// (writeBuffer per chunk, a last chunk of odd length padded), reads it
// back and reports its SHA-256: the check that TensorStream feeds a
// backend the right bytes, and hands every full chunk as the same JS
// object (Streamer: no js.Value for Go's collector to release per chunk).
func streamOne(ctx context.Context, d *webgpu.Device, src Source, name string, chunk int) (*glue.OpfsLoadResponse, error) {
	files, err := OpenGGUF(src)
	if err != nil {
		return nil, err
	}
	for si, f := range files {
		ti, ok := f.Tensor(name)
		if !ok {
			continue
		}
		if chunk <= 0 {
			chunk = gguf.DefaultChunkSize
		}
		size := (uint64(ti.Size) + 3) &^ 3
		buf, err := d.CreateBuffer("stream-check", max(size, 4), webgpu.UsageStorage|webgpu.UsageCopyDst|webgpu.UsageCopySrc)
		if err != nil {
			return nil, &Error{Kind: KindGPU, Op: "stream", Field: name, Offset: -1, Err: err}
		}
		defer buf.Destroy()
		var full js.Value // the first full chunk: every later one must be it
		err = TensorStream(ctx, src, si, f.DataOffset, ti, chunk)(func(off int64, c js.Value) error {
			n := c.Get("byteLength").Int()
			if n == chunk {
				if full.IsUndefined() {
					full = c
				} else if !c.Equal(full) {
					return &Error{Kind: KindInvalid, Op: "stream", Field: name, Offset: off, Msg: "a new JS object for a full chunk (the staging buffer must be reused)"}
				}
			}
			if n%4 == 0 {
				return d.WriteBufferJS(buf, uint64(off), c)
			}
			tail := make([]byte, (n+3)&^3)
			js.CopyBytesToGo(tail, c)
			return d.WriteBuffer(buf, uint64(off), tail)
		})
		if err != nil {
			return nil, err
		}
		b, err := d.ReadBuffer(ctx, buf, 0, size)
		if err != nil {
			return nil, &Error{Kind: KindGPU, Op: "stream", Field: name, Offset: -1, Err: err}
		}
		h := sha256.Sum256(b[:ti.Size])
		return &glue.OpfsLoadResponse{Bytes: ti.Size, Tensors: 1, GPUBuffers: 1, VerifyShard: uint32(si),
			VerifyOffset: f.DataOffset + int64(ti.Offset), VerifySize: ti.Size, VerifySHA256: hex.EncodeToString(h[:])}, nil
	}
	return nil, &Error{Kind: KindNotFound, Op: "stream", Field: name, Offset: -1, Msg: "no such tensor"}
}
